// Parsing JSON forge did not write (.nam models, safetensors headers, checkpoint descriptions,
// forge serve's request bodies): nested at most max_depth deep, and every error, nlohmann's
// own included, a FormatError that names the source.
#pragma once

#include <nlohmann/json.hpp>

#include <istream>
#include <string>
#include <string_view>

namespace forge {

// Nesting allowed in JSON documents that forge recurses along after parsing (JSON schemas
// compiled to grammars, forge serve's request bodies): real ones nest a dozen levels.
inline constexpr int kMaxDocumentDepth = 256;

nlohmann::json parse_json(std::istream& in, const std::string& source, int max_depth);
nlohmann::json parse_json(std::string_view text, const std::string& source, int max_depth);
// The same, keeping the objects' key order (JSON schemas: the answer follows their order).
nlohmann::ordered_json parse_ordered_json(std::string_view text, const std::string& source, int max_depth);

// nlohmann's message as a person reads it: without its "[json.exception.parse_error.101] " tag
// ("parse error at line 1, column 52: syntax error while parsing object key - ...").
std::string json_error_text(const nlohmann::json::exception& error);

}  // namespace forge
