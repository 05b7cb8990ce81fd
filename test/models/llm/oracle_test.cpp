// forge against llama.cpp on the committed random-weight goldens: f32 models to 1e-3 of the
// largest logit with the same argmax everywhere and a token-exact greedy continuation;
// quantized models (llama.cpp on the same file) to a cosine of 0.9999 per position.
#include "models/llm/model.h"
#include "models/llm/session.h"
#include "test/models/llm/golden.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>

namespace forge::llm {
namespace {

using test::Golden;
using test::load_golden;

std::int32_t argmax(std::span<const float> row) {
    return static_cast<std::int32_t>(std::max_element(row.begin(), row.end()) - row.begin());
}

double cosine(std::span<const float> a, std::span<const float> b) {
    double ab = 0, aa = 0, bb = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        ab += double(a[i]) * b[i];
        aa += double(a[i]) * a[i];
        bb += double(b[i]) * b[i];
    }
    return ab / std::sqrt(aa * bb);
}

std::vector<float> prompt_logits(const Model& model, const Golden& g, std::int64_t n_batch = 512) {
    SessionOptions options;
    options.n_ctx = 128;
    options.n_batch = n_batch;
    options.kv_type = KvType::F32;
    Session session(model, options);
    std::vector<float> logits(g.prompt.size() * static_cast<std::size_t>(model.hparams().n_vocab));
    session.eval(g.prompt, logits);
    return logits;
}

class F32Parity : public ::testing::TestWithParam<const char*> {};

TEST_P(F32Parity, EveryPositionMatchesLlamaCpp) {
    const Golden g = load_golden(GetParam());
    const Model model = Model::load(g.model_path);
    const auto n_vocab = static_cast<std::size_t>(model.hparams().n_vocab);
    ASSERT_EQ(g.logits.size(), g.prompt.size() * n_vocab);
    const std::vector<float> logits = prompt_logits(model, g);
    for (std::size_t pos = 0; pos < g.prompt.size(); ++pos) {
        const std::span<const float> ours(logits.data() + pos * n_vocab, n_vocab);
        const std::span<const float> theirs(g.logits.data() + pos * n_vocab, n_vocab);
        float max_logit = 0, max_diff = 0;
        for (std::size_t i = 0; i < n_vocab; ++i) {
            max_logit = std::max(max_logit, std::abs(theirs[i]));
            max_diff = std::max(max_diff, std::abs(ours[i] - theirs[i]));
        }
        EXPECT_LE(max_diff, 1e-3f * max_logit) << "position " << pos;
        EXPECT_EQ(argmax(ours), argmax(theirs)) << "position " << pos;
    }
}

TEST_P(F32Parity, GreedyContinuationIsTokenExact) {
    const Golden g = load_golden(GetParam());
    const Model model = Model::load(g.model_path);
    SessionOptions options;
    options.n_ctx = 64;
    options.kv_type = KvType::F32;
    Session session(model, options);
    std::span<const float> logits = session.eval(g.prompt);
    std::vector<std::int32_t> generated;
    for (std::size_t step = 0; step < g.greedy.size(); ++step) {
        const std::int32_t next = argmax(logits);  // lowest id on ties, as llama.cpp's greedy
        generated.push_back(next);
        logits = session.eval(std::span(&next, 1));
    }
    EXPECT_EQ(generated, g.greedy);
}

TEST_P(F32Parity, SmallBatchesGiveTheSameLogits) {
    const Golden g = load_golden(GetParam());
    const Model model = Model::load(g.model_path);
    const std::vector<float> whole = prompt_logits(model, g);
    const std::vector<float> chunked = prompt_logits(model, g, 5);
    for (std::size_t i = 0; i < whole.size(); ++i) ASSERT_NEAR(whole[i], chunked[i], 1e-4f) << i;
}

// llama-rope-freqs carries Llama 3.1-style rope_freqs.weight divisors; qwen3-yarn YaRN
// scaling (factor 4, original context 256, attn_factor 1.1).
INSTANTIATE_TEST_SUITE_P(Goldens, F32Parity,
                         ::testing::Values("llama-f32", "qwen2-f32", "qwen3-f32", "llama-rope-freqs", "qwen3-yarn"));

class QuantizedParity : public ::testing::TestWithParam<const char*> {};

TEST_P(QuantizedParity, CosineToLlamaCppOnTheSameFile) {
    const Golden g = load_golden(GetParam());
    const Model model = Model::load(g.model_path);
    const auto n_vocab = static_cast<std::size_t>(model.hparams().n_vocab);
    ASSERT_EQ(g.logits.size(), g.prompt.size() * n_vocab);
    const std::vector<float> logits = prompt_logits(model, g);
    for (std::size_t pos = 0; pos < g.prompt.size(); ++pos) {
        const double c = cosine({logits.data() + pos * n_vocab, n_vocab}, {g.logits.data() + pos * n_vocab, n_vocab});
        EXPECT_GE(c, 0.9999) << "position " << pos;
    }
}

// One token at a time (n_batch 1): the decode path of every layer (matrix-vector products,
// the tied head's embedding rows read back from its interleaved copy where there is one).
TEST_P(QuantizedParity, TokenByTokenToo) {
    const Golden g = load_golden(GetParam());
    const Model model = Model::load(g.model_path);
    const auto n_vocab = static_cast<std::size_t>(model.hparams().n_vocab);
    const std::vector<float> logits = prompt_logits(model, g, 1);
    for (std::size_t pos = 0; pos < g.prompt.size(); ++pos) {
        const double c = cosine({logits.data() + pos * n_vocab, n_vocab}, {g.logits.data() + pos * n_vocab, n_vocab});
        EXPECT_GE(c, 0.9999) << "position " << pos;
    }
}

// llama-q4_k is pure Q4_K; qwen3-q4_k_m (tied head) and llama-q5_k_m (untied) are llama.cpp's
// Q4_K_M / Q5_K_M mixtures: Q4_K or Q5_K layers beside Q6_K attn_v, ffn_down and head.
INSTANTIATE_TEST_SUITE_P(Goldens, QuantizedParity,
                         ::testing::Values("qwen3-f16", "qwen3-q8_0", "qwen3-q4_0", "llama-q8_0", "qwen2-q4_0",
                                           "llama-q4_k", "qwen3-q6_k", "qwen3-q4_k_m", "llama-q5_k_m"));

}  // namespace
}  // namespace forge::llm
