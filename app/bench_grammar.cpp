// `forge bench grammar MODEL.gguf [--reps 5] [--json]`: what constrained decoding costs per
// token on the model's vocabulary (the 151k-token Qwen3 one is the case the issue names).
// Only the tokenizer is read. A fixed JSON answer (kAnswer) is replayed token by token through
// a GrammarConstraint: each step masks the full logits row, then accepts the answer's token,
// as Generation::next does. The first replay runs with an empty mask cache (every parse
// position is met for the first time: the trie walks); the next --reps replays are the steady
// state a server sees once a schema has been used. Reported: the vocabulary index build, then
// microseconds per token, cold and warm (median), for a JSON schema and for json_object.
#include "app/bench.h"
#include "app/timing.h"
#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "models/llm/grammar/grammar_constraint.h"
#include "models/llm/grammar/json_schema.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
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
};

struct MaskTimes {
    double cold_us = 0;                  // per token, empty cache
    std::vector<double> warm_us;         // per token, each replay
    std::size_t tokens = 0;
};

MaskTimes time_masks(const std::shared_ptr<const llm::grammar::Grammar>& grammar,
                     const std::shared_ptr<const llm::grammar::VocabularyIndex>& vocabulary,
                     const std::vector<std::int32_t>& answer, int reps) {
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
        check(constraint.complete(), "bench grammar: the answer does not complete the grammar");
        return std::chrono::duration<double, std::micro>(Clock::now() - start).count() / static_cast<double>(answer.size());
    };
    t.cold_us = replay();
    for (int r = 0; r < reps; ++r) t.warm_us.push_back(replay());
    return t;
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
    return 0;
}

}  // namespace

void add_bench_grammar_command(CLI::App& bench, CommandTable& commands) {
    auto o = std::make_shared<BenchGrammarOptions>();
    CLI::App* cmd = bench.add_subcommand("grammar", "Cost of constrained decoding (JSON Schema token masks) per token");
    cmd->add_option("MODEL", o->model, "GGUF model whose vocabulary to use (only the tokenizer is read)")->required();
    cmd->add_option("--reps", o->reps, "Warm replays after the cold one (default 5)");
    cmd->add_flag("--json", o->json, "Print the results as JSON");
    commands.add(cmd, [o] { return run_bench_grammar(*o); });
}

}  // namespace forge::app
