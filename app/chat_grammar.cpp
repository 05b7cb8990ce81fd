#include "app/chat_grammar.h"

#include "core/error.h"
#include "core/json.h"
#include "models/llm/grammar/gbnf.h"
#include "models/llm/grammar/json_schema.h"
#include "models/llm/grammar/regex_grammar.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace forge::app {

namespace {

std::string read_file(const std::string& flag, const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    check(in.good(), "{}: cannot read {}", flag, path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

std::shared_ptr<const llm::grammar::Grammar> chat_grammar(const ChatGrammarFlags& flags) {
    const int given = !flags.json_schema_file.empty() + !flags.regex.empty() + !flags.grammar_file.empty();
    check(given <= 1, "--json-schema, --regex and --grammar-file cannot be used together: give one");
    if (!flags.regex.empty()) return llm::grammar::compile_regex(flags.regex);
    if (!flags.grammar_file.empty()) {
        const std::string text = read_file("--grammar-file", flags.grammar_file);
        try {
            return llm::grammar::compile_gbnf(text);
        } catch (const Error& e) {  // a GbnfError (line, column) or a GrammarLimitError
            fail("--grammar-file {}: {}", flags.grammar_file, e.what());
        }
    }
    const std::string& json_schema_file = flags.json_schema_file;
    if (json_schema_file.empty()) return nullptr;
    const std::string text = read_file("--json-schema", json_schema_file);
    nlohmann::ordered_json schema;
    try {
        // Bounded nesting: compiling a schema recurses along it (as forge serve's bodies).
        schema = parse_ordered_json(text, "--json-schema " + json_schema_file, kMaxDocumentDepth);
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
