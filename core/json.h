// Parsing JSON from files forge did not write (.nam models, safetensors headers, checkpoint
// descriptions): nested at most max_depth deep, and every error, nlohmann's own included,
// a FormatError that names the source.
#pragma once

#include <nlohmann/json.hpp>

#include <istream>
#include <string>
#include <string_view>

namespace forge {

nlohmann::json parse_json(std::istream& in, const std::string& source, int max_depth);
nlohmann::json parse_json(std::string_view text, const std::string& source, int max_depth);

}  // namespace forge
