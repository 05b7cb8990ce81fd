// GBNF against llama.cpp's grammar sampler (the goldens of tools/grammar/make_gbnf_goldens.mjs,
// made with node-llama-cpp): greedy generation under each grammar, on the committed
// random-weight Qwen3-shaped model from the same prompt token ids, gives the same token ids,
// exactly. The grammars cover recursion through groups, bounded and unbounded repetitions,
// negated classes and '.', whose tokens may end inside a multi-byte character.
//
// One difference is by design: llama.cpp's UTF-8 decoder reads a byte F5-FF (never valid UTF-8)
// as the lead of a 4-byte character past U+10FFFF, which a negated class or '.' admits, so its
// sampler can emit invalid UTF-8 there; forge's grammars match only valid UTF-8. Where the
// golden takes such a token, forge must agree up to it and then take another (valid) one.
#include "models/llm/grammar/gbnf.h"
#include "models/llm/grammar/grammar_constraint.h"
#include "models/llm/model.h"
#include "core/utf8.h"
#include "models/llm/sequence_generator.h"
#include "models/llm/tokenizer/utf8.h"
#include "test/models/llm/golden.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace forge::llm::grammar {
namespace {

// The first token whose bytes are never part of valid UTF-8 (C0, C1, F5-FF); tokens.size() if none.
std::size_t first_invalid(const Tokenizer& tokenizer, const std::vector<std::int32_t>& tokens) {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        for (const char c : tokenizer.token_to_piece(tokens[i])) {
            const auto b = static_cast<unsigned char>(c);
            if (b == 0xC0 || b == 0xC1 || b >= 0xF5) return i;
        }
    }
    return tokens.size();
}

TEST(GrammarGbnfOracle, GreedyGenerationMatchesLlamaCppTokenForToken) {
    std::ifstream in(std::string(FORGE_TEST_DATA_DIR) + "/grammar/gbnf_goldens.json");
    ASSERT_TRUE(in) << "test/data/grammar/gbnf_goldens.json";
    const auto goldens = nlohmann::json::parse(in);
    const Model model = Model::load(test::golden_path("qwen3-f32.gguf"));
    ASSERT_EQ(goldens["model"], "test/data/llm/qwen3-f32.gguf");
    const PromptFormat format(model);
    const auto vocabulary = std::make_shared<const VocabularyIndex>(format.tokenizer());
    const auto prompt = goldens["prompt"].get<std::vector<std::int32_t>>();
    ASSERT_GE(goldens["grammars"].size(), 5u);
    std::size_t exact = 0;  // grammars whose whole generation must match
    for (const auto& case_ : goldens["grammars"]) {
        SCOPED_TRACE(case_["name"].get<std::string>());
        SequenceGenerator generator(model, format.tokenizer(), SessionOptions{64, 256, KvType::F16});
        GenerationOptions o;
        o.sampling.temperature = 0.0f;
        o.max_tokens = goldens["max_tokens"].get<std::int64_t>();
        o.constraint = std::make_shared<GrammarConstraint>(compile_gbnf(case_["grammar"].get<std::string>()), vocabulary);
        Sampler sampler(o.sampling, model.hparams().n_vocab);
        const GenerationStats stats = generator.generate(prompt, o, sampler, [](std::string_view) { return true; });
        const auto expected = case_["tokens"].get<std::vector<std::int32_t>>();
        const std::vector<std::int32_t>& got = generator.answer();
        const std::size_t invalid = first_invalid(format.tokenizer(), expected);
        if (invalid == expected.size()) {
            EXPECT_EQ(got, expected);
            EXPECT_EQ(stats.finish == FinishReason::EndOfGeneration, case_["ended"].get<bool>());
            ++exact;
            continue;
        }
        ASSERT_GT(got.size(), invalid);
        EXPECT_EQ(std::vector<std::int32_t>(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(invalid)),
                  std::vector<std::int32_t>(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(invalid)));
        EXPECT_NE(got[invalid], expected[invalid]);
        std::string text;
        for (const std::int32_t t : got) text += format.tokenizer().token_to_piece(t);
        EXPECT_TRUE(forge::utf8::is_valid(text.substr(0, text.size() - llm::utf8::incomplete_tail(text))));
    }
    EXPECT_GE(exact, 5u);
}

}  // namespace
}  // namespace forge::llm::grammar
