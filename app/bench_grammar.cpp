// `forge bench grammar MODEL.gguf [--reps 5] [--json]`: what constrained decoding costs per
// token on the model's vocabulary (the 151k-token Qwen3 one is the case the issue names).
// Only the tokenizer is read. A fixed JSON answer (kAnswer) is replayed token by token through
// a GrammarConstraint: each step masks the full logits row, then accepts the answer's token,
// as GenerationState::next does. The first replay runs with an empty mask cache (every parse
// position is met for the first time: the trie walks); the next --reps replays are the steady
// state a server sees once a schema has been used. Reported: the vocabulary index build, then
// microseconds per token, cold and warm (median), for a JSON schema and for json_object.
//
// Then the worst cases (kWorstCases): the hostile patterns and schemas of issue 32 that made
// the engine crash, hang or take gigabytes. Each reports its compile time and size (or the
// time to refuse it, with the error), and for those that compile the mask cost per token of a
// text that keeps the grammar at its most ambiguous, so the bounds of
// models/llm/grammar/grammar_limits.h are measured, not assumed.
#include "app/bench.h"
#include "app/cli_checks.h"
#include "app/timing.h"
#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "models/llm/grammar/grammar_constraint.h"
#include "models/llm/grammar/json_schema.h"
#include "models/llm/grammar/regex_grammar.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

namespace forge::app {

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kSchema = R"json({"type": "object", "properties": {
  "name": {"type": "string"}, "age": {"type": "integer", "minimum": 0, "maximum": 150},
  "email": {"type": "string", "format": "uuid"}, "role": {"enum": ["admin", "user", "guest"]},
  "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 8},
  "address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
              "required": ["street", "city", "zip"]},
  "score": {"type": "number"}, "active": {"type": "boolean"}},
  "required": ["name", "age", "email", "role", "tags", "address", "score", "active"]})json";

constexpr const char* kAnswer = R"json({"name": "Ada Lovelace, Countess of Lovelace (née Byron)", "age": 36,
  "email": "3f2b8c1e-9a4d-4e6f-8b21-0c5d7e9f1a2b", "role": "admin",
  "tags": ["mathematics", "analytical engine", "poetry of science", "notes G"],
  "address": {"street": "12 St James's Square", "city": "London", "zip": "10117"}, "score": 98.25, "active": true})json";

struct BenchGrammarOptions {
    std::string model;
    int reps = 5;
    bool json = false;
    bool worst = true;
};

struct MaskTimes {
    double cold_us = 0;                  // per token, empty cache
    std::vector<double> warm_us;         // per token, each replay
    std::size_t tokens = 0;
};

MaskTimes time_masks(const std::shared_ptr<const llm::grammar::Grammar>& grammar,
                     const std::shared_ptr<const llm::grammar::VocabularyIndex>& vocabulary,
                     const std::vector<std::int32_t>& answer, int reps, bool whole = true) {
    MaskTimes t;
    t.tokens = answer.size();
    std::vector<float> logits(static_cast<std::size_t>(vocabulary->n_vocab()), 0.0f);
    auto replay = [&] {
        llm::grammar::GrammarConstraint constraint(grammar, vocabulary);
        const auto start = Clock::now();
        for (std::int32_t token : answer) {
            constraint.mask(logits);
            constraint.accept(token);
        }
        check(!whole || constraint.complete(), "bench grammar: the answer does not complete the grammar");
        return std::chrono::duration<double, std::micro>(Clock::now() - start).count() / static_cast<double>(answer.size());
    };
    t.cold_us = replay();
    for (int r = 0; r < reps; ++r) t.warm_us.push_back(replay());
    return t;
}

// A hostile input: a pattern or a schema, and a text that keeps its grammar busiest.
struct WorstCase {
    std::string name;
    std::function<std::shared_ptr<const llm::grammar::Grammar>()> compile;
    std::string text;  // empty: the compile is what is measured (or refused)
};

// `properties` strings, property i with the pattern ^L{0,n}$ for a character L of its own (the
// 561-byte request that took 0.9 GB; identical patterns would share their rules).
std::string many_patterns(int properties, int n) {
    nlohmann::ordered_json schema = {{"type", "object"}, {"properties", nlohmann::ordered_json::object()}};
    for (int i = 0; i < properties; ++i)  // characters U+0030 and up, as \xHH escapes
        schema["properties"][fmt::format("p{}", i)] = {{"type", "string"}, {"pattern", fmt::format("^\\x{:02x}{{0,{}}}$", 0x30 + i, n)}};
    return schema.dump();
}

std::vector<WorstCase> worst_cases() {
    using llm::grammar::compile_json_schema;
    using llm::grammar::compile_regex;
    const auto schema = [](std::string text) { return [text] { return compile_json_schema(nlohmann::ordered_json::parse(text)); }; };
    const auto regex = [](std::string pattern) { return [pattern] { return compile_regex(pattern); }; };
    nlohmann::ordered_json big_enum = {{"enum", nlohmann::ordered_json::array()}};
    for (int i = 0; i < 50000; ++i) big_enum["enum"].push_back(fmt::format("value-{:05d}", i * 7));
    const std::string as(300, 'a');
    return {
        {"regex (a?){0,6000}", regex("(a?){0,6000}"), as},
        {"regex (a*)*", regex("(a*)*"), as},
        {"regex (|a)*", regex("(|a)*"), as},
        {"regex a{0,1000}a{0,1000}", regex("a{0,1000}a{0,1000}"), as},
        {"regex X{0,10000} (largest count)", regex("X{0,10000}"), ""},
        {"schema enum of 50000 values", schema(big_enum.dump()), "\"value-54320\""},
        {"schema 6 x pattern L{0,9999} (largest)", schema(many_patterns(6, 9999)), ""},
        {"refused: regex (a?){0,99999}", regex("(a?){0,99999}"), ""},
        {"refused: regex a{99999999999999999999}", regex("a{99999999999999999999}"), ""},
        {"refused: schema 25 x pattern L{0,9999}", schema(many_patterns(25, 9999)), ""},
        {"refused: schema {\"$ref\": \"#\"}", schema(R"({"$ref": "#"})"), ""},
    };
}

void print_worst_cases(const llm::Tokenizer& tokenizer, const std::shared_ptr<const llm::grammar::VocabularyIndex>& vocabulary,
                       int reps) {
    fmt::print("worst cases (issue 32): compile, size, mask + accept per token of a text at the grammar's busiest\n");
    for (const WorstCase& c : worst_cases()) {
        const auto start = Clock::now();
        std::shared_ptr<const llm::grammar::Grammar> grammar;
        std::string refused;
        try {
            grammar = c.compile();
        } catch (const Error& e) {
            refused = e.what();
        }
        const double compile_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        if (!grammar) {
            fmt::print("  {:<40} refused in {:8.1f} ms: {:.90}\n", c.name, compile_ms, refused);
            continue;
        }
        fmt::print("  {:<40} compiled in {:7.1f} ms, {:7} symbols, {:7.0f} KB", c.name, compile_ms, grammar->element_count(),
                   static_cast<double>(grammar->memory_bytes()) / 1024);
        if (!c.text.empty()) {
            const MaskTimes t = time_masks(grammar, vocabulary, tokenizer.encode(c.text, false, false), reps, false);
            fmt::print("; {} tokens: warm {:.1f} / cold {:.1f} us/token", t.tokens, bench::summarize(t.warm_us).median, t.cold_us);
        }
        fmt::print("\n");
    }
}

int run_bench_grammar(const BenchGrammarOptions& o) {
    check(o.reps > 0, "--reps must be positive");
    const gguf::GgufFile file = gguf::GgufFile::open(o.model);
    const llm::Tokenizer tokenizer = llm::Tokenizer::from_gguf(file);
    const auto index_start = Clock::now();
    const auto vocabulary = std::make_shared<const llm::grammar::VocabularyIndex>(tokenizer);
    const double index_ms = std::chrono::duration<double, std::milli>(Clock::now() - index_start).count();
    const auto answer = tokenizer.encode(kAnswer, false, false);
    const auto schema = llm::grammar::compile_json_schema(nlohmann::ordered_json::parse(kSchema));
    const MaskTimes s = time_masks(schema, vocabulary, answer, o.reps);
    const MaskTimes j = time_masks(llm::grammar::json_object_grammar(), vocabulary, answer, o.reps);
    const double s_warm = bench::summarize(s.warm_us).median, j_warm = bench::summarize(j.warm_us).median;
    if (o.json) {
        const nlohmann::json result = {
            {"model", o.model}, {"n_vocab", tokenizer.n_vocab()}, {"trie_nodes", vocabulary->nodes().size()},
            {"index_build_ms", index_ms}, {"answer_tokens", answer.size()}, {"reps", o.reps},
            {"json_schema_cold_us_per_token", s.cold_us}, {"json_schema_warm_us_per_token", s_warm},
            {"json_object_cold_us_per_token", j.cold_us}, {"json_object_warm_us_per_token", j_warm}};
        fmt::print("{}\n", result.dump(2));
        return 0;
    }
    fmt::print("vocabulary {} tokens ({} trie nodes), index built in {:.1f} ms\n", tokenizer.n_vocab(), vocabulary->nodes().size(), index_ms);
    fmt::print("answer: {} tokens, mask + accept per token (median of {} warm replays):\n", answer.size(), o.reps);
    fmt::print("  json_schema  warm {:8.1f} us/token   cold {:10.1f} us/token\n", s_warm, s.cold_us);
    fmt::print("  json_object  warm {:8.1f} us/token   cold {:10.1f} us/token\n", j_warm, j.cold_us);
    if (o.worst) print_worst_cases(tokenizer, vocabulary, o.reps);
    return 0;
}

}  // namespace

void add_bench_grammar_command(CLI::App& bench, CommandTable& commands) {
    auto o = std::make_shared<BenchGrammarOptions>();
    CLI::App* cmd = bench.add_subcommand("grammar", "Cost of constrained decoding (JSON Schema token masks) per token");
    cmd->add_option("MODEL", o->model, "GGUF model whose vocabulary to use (only the tokenizer is read)")->required();
    cmd->add_option("--reps", o->reps, "Warm replays after the cold one (default 5)")->check(CLI::Range(1, 1000));
    cmd->add_flag("--json", o->json, "Print the results as JSON");
    cmd->add_flag("!--no-worst", o->worst, "Leave out the worst cases (hostile patterns and schemas)");
    commands.add(cmd, [o] { return run_bench_grammar(*o); });
}

}  // namespace forge::app
