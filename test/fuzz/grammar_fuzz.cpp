// libFuzzer target for the grammar engine (models/llm/grammar/): the first byte picks a regex
// (0 mod 3), a JSON Schema (1 mod 3) or a GBNF grammar (2 mod 3), the text up to the next NUL
// is the pattern, schema or grammar, and the
// bytes after it are walked through the compiled grammar a few at a time. Compiling gives a
// grammar or a forge::Error (a SchemaError / GbnfError / GrammarLimitError for what the input asked too
// much of); walking gives accepted or refused bytes or a GrammarLimitError — never a crash, a
// stack overflow, undefined behaviour, or a run without bound (grammar_limits.h).
#include "core/error.h"
#include "core/json.h"
#include "models/llm/grammar/gbnf.h"
#include "models/llm/grammar/json_schema.h"
#include "models/llm/grammar/matcher.h"
#include "models/llm/grammar/regex_grammar.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace {

enum class Front { Regex, Schema, Gbnf };

std::shared_ptr<const forge::llm::grammar::Grammar> compile(Front front, std::string_view source) {
    if (front == Front::Regex) return forge::llm::grammar::compile_regex(source);
    if (front == Front::Gbnf) return forge::llm::grammar::compile_gbnf(source);
    // As forge serve reads a schema: nesting bounded while parsing (a FormatError past it).
    const nlohmann::ordered_json schema = forge::parse_ordered_json(std::string(source), "schema", forge::kMaxDocumentDepth);
    return forge::llm::grammar::compile_json_schema(schema);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const auto front = static_cast<Front>(data[0] % 3);
    const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
    const std::size_t split = std::min(input.find('\0'), input.size());
    const std::string_view text = split < input.size() ? input.substr(split + 1) : std::string_view();
    try {
        forge::llm::grammar::Matcher matcher(compile(front, input.substr(0, split)));
        // A few bytes at a time, as tokens arrive; a refused piece leaves the state as it was.
        for (std::size_t at = 0; at < text.size(); at += 3) {
            const std::string_view piece = text.substr(at, 3);
            matcher.allows(piece);
            matcher.accept(piece);
        }
    } catch (const forge::Error&) {
        // A bad or too costly pattern or schema: the expected outcome, named by its message.
    }
    return 0;
}
