#include "app/chat_grammar.h"

#include "core/error.h"
#include "core/json.h"
#include "models/llm/grammar/json_schema.h"
#include "models/llm/grammar/regex_grammar.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace forge::app {

std::shared_ptr<const llm::grammar::Grammar> chat_grammar(const std::string& json_schema_file, const std::string& regex) {
    check(json_schema_file.empty() || regex.empty(), "--json-schema and --regex cannot be used together");
    if (!regex.empty()) return llm::grammar::compile_regex(regex);
    if (json_schema_file.empty()) return nullptr;
    std::ifstream in(json_schema_file);
    check(in.good(), "--json-schema: cannot read {}", json_schema_file);
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::ordered_json schema;
    try {
        // Bounded nesting: compiling a schema recurses along it (as forge serve's bodies).
        schema = parse_ordered_json(text.str(), "--json-schema " + json_schema_file, kMaxDocumentDepth);
    } catch (const FormatError& e) {
        fail("{}", e.what());
    }
    try {
        return llm::grammar::compile_json_schema(schema);
    } catch (const llm::grammar::SchemaError& e) {
        fail("--json-schema {}: {}", json_schema_file, e.what());
    }
}

CLI::Validator regex_pattern() {
    return CLI::Validator(
        [](std::string& pattern) -> std::string {
            try {
                llm::grammar::compile_regex(pattern);
                return {};
            } catch (const Error& e) {
                return e.what();
            }
        },
        "PATTERN");
}

}  // namespace forge::app
