// The GrammarConstraint on the real Qwen3 vocabulary (151,669 tokens, the llm_text fixture):
// random logits, sampled under the mask, always give text the grammar accepts; end of
// generation is allowed exactly where the text is complete; the trie agrees with a plain
// per-token check.
#include "models/llm/grammar/grammar_constraint.h"
#include "models/llm/grammar/json_schema.h"
#include "models/llm/sequence_generator.h"
#include "models/llm/grammar/regex_grammar.h"
#include "models/llm/model.h"
#include "test/models/llm/golden.h"
#include "models/llm/tokenizer/tokenizer.h"
#include "test/models/llm/grammar_testing.h"
#include "test/models/llm/qwen3_vocabulary.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <random>

namespace forge::llm::grammar {
namespace {

using json = nlohmann::ordered_json;

test::Qwen3Vocabulary& qwen3() { return test::qwen3_vocabulary(); }

}  // namespace

// Samples from random logits under the constraint until an end-of-generation token (or `limit`
// tokens); returns the text.
// Random logits, cheaply: a window at a random offset into one table of uniform noise (made
// with mt19937, whose sequence the standard fixes, so the goldens do not depend on the library).
std::span<const float> random_logits(std::mt19937& rng, std::size_t n) {
    static const std::vector<float> table = [n] {
        std::mt19937 fill(12345);
        std::vector<float> t(2 * n);
        for (float& x : t) x = static_cast<float>(fill() >> 8) * (10.0f / 16777216.0f);
        return t;
    }();
    return std::span(table).subspan(rng() % n, n);
}

std::string random_constrained(const std::shared_ptr<const Grammar>& g, unsigned seed, int limit, bool& ended) {
    auto& v = qwen3();
    GrammarConstraint constraint(g, v.index);
    std::mt19937 rng(seed);
    std::vector<float> logits(static_cast<std::size_t>(v.tokenizer.n_vocab()));
    std::string text;
    ended = false;
    for (int step = 0; step < limit; ++step) {
        const auto noise = random_logits(rng, logits.size());
        std::copy(noise.begin(), noise.end(), logits.begin());
        constraint.mask(logits);
        const auto best = static_cast<std::int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
        EXPECT_TRUE(std::isfinite(logits[best])) << "every token masked after " << text;
        if (v.tokenizer.is_end_of_generation(best)) {
            EXPECT_TRUE(constraint.complete()) << text;
            ended = true;
            return text;
        }
        constraint.accept(best);
        text += v.tokenizer.token_to_piece(best);
    }
    return text;
}

namespace {

TEST(GrammarConstraint, RandomLogitsUnderASchemaGiveValidJson) {
    const auto schema = json::parse(R"({"type": "object", "properties": {
        "id": {"type": "integer", "minimum": 0, "maximum": 999}, "name": {"type": "string", "maxLength": 12},
        "ok": {"type": "boolean"}, "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 3}},
        "required": ["id", "name", "ok", "tags"]})");
    const auto g = compile_json_schema(schema);
    for (unsigned seed = 1; seed <= 8; ++seed) {
        bool ended = false;
        const std::string text = random_constrained(g, seed, 200, ended);
        ASSERT_TRUE(ended) << "seed " << seed << ": " << text;
        const auto value = json::parse(text);  // throws on invalid JSON
        EXPECT_LE(value["id"].get<int>(), 999);
        EXPECT_LE(value["tags"].size(), 3u);
    }
}

TEST(GrammarConstraint, EndOfGenerationOnlyWhereComplete) {
    auto& v = qwen3();
    GrammarConstraint constraint(compile_regex("ab|abc"), v.index);
    const auto eog = v.index->end_of_generation();
    ASSERT_FALSE(eog.empty());
    auto allowed = [&] { return constraint.allowed_tokens(); };
    auto has = [](const std::vector<std::int32_t>& ids, std::int32_t id) { return std::binary_search(ids.begin(), ids.end(), id); };
    EXPECT_FALSE(has(allowed(), eog[0]));
    constraint.accept(*v.tokenizer.vocab().find("ab"));
    EXPECT_TRUE(constraint.complete());
    auto now = allowed();
    EXPECT_TRUE(has(now, eog[0]));
    EXPECT_TRUE(has(now, *v.tokenizer.vocab().find("c")));
    EXPECT_EQ(now.size(), eog.size() + 1);  // "c" or the end
    EXPECT_THROW(constraint.accept(*v.tokenizer.vocab().find("d")), Error);
}

TEST(GrammarConstraint, TrieWalkAgreesWithCheckingEachToken) {
    auto& v = qwen3();
    const auto g = compile_json_schema(json::parse(R"({"type": "object", "properties": {"n": {"type": "string"}, "x": {"type": "number"}}, "required": ["n", "x"]})"));
    for (std::string prefix : {"", "{", "{\"n\": \"ab", "{\"n\": \"ab\", \"x\": -1"}) {
        GrammarConstraint constraint(g, v.index);
        Matcher reference(g);
        ASSERT_TRUE(reference.accept(prefix));
        for (std::int32_t id : v.tokenizer.encode(prefix, false, false)) constraint.accept(id);
        const auto allowed = constraint.allowed_tokens();
        std::vector<std::int32_t> expected;
        for (std::int32_t id = 0; id < v.tokenizer.n_vocab(); ++id) {
            const std::string& piece = v.index->piece(id);
            if (!piece.empty() && reference.allows(piece)) expected.push_back(id);
        }
        if (reference.complete()) {
            for (std::int32_t id : v.index->end_of_generation()) expected.push_back(id);
            std::sort(expected.begin(), expected.end());
        }
        EXPECT_EQ(allowed, expected) << "after '" << prefix << "'";
        EXPECT_GT(allowed.size(), 0u);
    }
}

}  // namespace
}  // namespace forge::llm::grammar

namespace forge::llm::grammar {
namespace {

// A real generation (the committed random-weight Qwen3 golden model, greedy and sampled): the
// GrammarConstraint on GenerationOptions keeps the answer valid and lets it end only when done.
TEST(GrammarConstraint, DrivesARealGeneration) {
    const Model model = Model::load(test::golden_path("qwen3-q8_0.gguf"));
    const PromptFormat format(model);
    const auto vocabulary = std::make_shared<const VocabularyIndex>(format.tokenizer());
    const auto g = compile_json_schema(json::parse(R"({"type": "object", "properties": {
        "answer": {"type": "string", "maxLength": 8}, "n": {"type": "integer", "minimum": -5, "maximum": 5},
        "ok": {"type": "boolean"}}, "required": ["answer", "n", "ok"]})"));
    for (const float temperature : {0.0f, 1.0f}) {
        SequenceGenerator generator(model, format.tokenizer(), SessionOptions{64, 512, KvType::F16});
        GenerationOptions o;
        o.sampling.temperature = temperature;
        o.sampling.seed = 3;
        o.max_tokens = 120;
        o.constraint = std::make_shared<GrammarConstraint>(g, vocabulary);
        Sampler sampler(o.sampling, model.hparams().n_vocab);
        std::string text;
        const GenerationStats stats = generator.generate(std::vector<std::int32_t>{72, 101, 108}, o, sampler, [&](std::string_view piece) {
            text += piece;
            return true;
        });
        EXPECT_EQ(stats.finish, FinishReason::EndOfGeneration) << text;
        const json value = json::parse(text);
        EXPECT_LE(value["answer"].get<std::string>().size(), 8u * 4);
        EXPECT_LE(std::abs(value["n"].get<int>()), 5);
    }
}

}  // namespace
}  // namespace forge::llm::grammar
