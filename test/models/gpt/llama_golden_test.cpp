// The proof that a GPT trained here runs in llama.cpp: tools/make_gpt_llama_goldens.py
// trained the tiny run (tiny_run.h) on the command line and recorded what llama.cpp
// (node-llama-cpp) made of its model.gguf -- token ids, logits at every prompt position, the
// greedy continuation. This test trains the same run again and checks its model against
// those goldens: the same ids from forge's tokenizer, the training forward's logits within
// 1e-5 of the largest logit with the same argmax everywhere, the same greedy tokens.
#include "core/autograd/grad_mode.h"
#include "core/gguf/gguf_file.h"
#include "models/gpt/evaluate.h"
#include "models/gpt/gpt_model.h"
#include "models/gpt/run_checkpoint.h"
#include "models/llm/tokenizer/tokenizer.h"
#include "test/models/gpt/tiny_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

namespace forge::gpt {
namespace {

std::vector<float> read_f32(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    std::vector<float> values(static_cast<std::size_t>(in.tellg()) / sizeof(float));
    in.seekg(0);
    in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(float)));
    return values;
}

TEST(GptLlamaGolden, RetrainedTinyModelMatchesLlamaCpp) {
    const auto dir = std::filesystem::path(FORGE_TEST_DATA_DIR) / "gpt";
    nlohmann::json golden;
    std::ifstream(dir / "llama_tiny.json") >> golden;
    const std::vector<float> llama = read_f32(dir / "llama_tiny.logits.f32");

    const TrainConfig config = testing::tiny_config(testing::scratch_dir("llama_golden"));
    train_gpt(config, {});

    // Tokens: forge's tokenizer on the exported file gives llama.cpp's ids.
    const auto file = gguf::GgufFile::open((config.out_dir / "model.gguf").string());
    const auto tokenizer = llm::Tokenizer::from_gguf(file);
    const auto ids = tokenizer.encode(golden["prompt"].get<std::string>(), false, false);
    EXPECT_EQ(ids, golden["tokens_no_special"].get<std::vector<std::int32_t>>());
    const auto eval = golden["eval_tokens"].get<std::vector<std::int32_t>>();
    ASSERT_EQ(eval.size(), ids.size() + 1);
    EXPECT_EQ(eval[0], tokenizer.bos_id());

    // Logits: the training forward of the re-trained model against llama.cpp's.
    GptConfig shape;
    shape.depth = config.depth;
    shape.vocab = tokenizer.n_vocab();
    shape.context = config.seq_len;
    GptModel model(shape, 0);
    load_checkpoint_params(config.out_dir / "checkpoint.safetensors", model);
    const auto n = static_cast<std::int64_t>(eval.size());
    const std::int64_t vocab = shape.vocab;
    ASSERT_EQ(llama.size(), static_cast<std::size_t>(n * vocab));
    std::vector<float> ours;
    {
        ag::NoGradScope no_grad;
        ours = model.forward(Tensor::from(std::span<const std::int32_t>(eval), Shape{1, n})).to_vector();
    }
    float max_logit = 0.0f;
    for (const float v : llama) max_logit = std::max(max_logit, std::fabs(v));
    for (std::int64_t t = 0; t < n; ++t) {
        const std::span<const float> a = std::span(ours).subspan(t * vocab, vocab);
        const std::span<const float> b = std::span(llama).subspan(t * vocab, vocab);
        float worst = 0.0f;
        for (std::int64_t i = 0; i < vocab; ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
        // Measured: 3.3e-7 of the max logit on the simd build (which made the goldens), 1.0e-6
        // on the scalar build (it re-trains with other rounding); 10x the worst. The issue
        // asks for 1e-4.
        EXPECT_LE(worst, 1e-5f * max_logit) << "position " << t;
        EXPECT_EQ(std::max_element(a.begin(), a.end()) - a.begin(), std::max_element(b.begin(), b.end()) - b.begin())
            << "argmax at position " << t;
    }

    // Greedy continuation: identical tokens.
    const auto greedy = greedy_continuation(model, eval, static_cast<int>(golden["greedy"].size()));
    EXPECT_EQ(greedy, golden["greedy"].get<std::vector<std::int32_t>>());
}

}  // namespace
}  // namespace forge::gpt
