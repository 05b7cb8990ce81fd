// `forge lora merge` (models/llm/lora/merge_adapters.h) against run-time application: the
// merged f32 model's logits equal base + adapters' within a measured bound, with one adapter
// and with two; a Q8_0 base merges into Q8_0 weights (argmax and cosine) with every tensor the
// adapters do not touch copied byte for byte; --quantize picks the merged weights' type.
#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "models/llm/lora/merge_adapters.h"
#include "models/llm/model.h"
#include "models/llm/session.h"
#include "test/models/llm/golden.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace forge::llm {
namespace {

using lora::LoraSpec;

const std::vector<std::int32_t> kPrompt = {72, 101, 108, 108, 111, 44, 256, 300, 350, 400, 450, 500, 12, 33};

std::string lora_path(const std::string& file) { return test::golden_path("lora/" + file); }

std::vector<float> logits_of(const Model& model) {
    SessionOptions options;
    options.n_ctx = 32;
    options.kv_type = KvType::F32;
    Session session(model, options);
    std::vector<float> logits(kPrompt.size() * static_cast<std::size_t>(model.hparams().n_vocab));
    session.eval(kPrompt, logits);
    return logits;
}

// Runtime (base + adapters) and merged logits, and the merged file (removed by the caller).
struct Compared {
    std::vector<float> runtime, merged;
    std::string merged_path;
};

Compared merge_and_run(const std::string& base, const std::vector<LoraSpec>& adapters, std::optional<DType> type = {}) {
    Compared c;
    c.merged_path = (std::filesystem::temp_directory_path() / ("forge_lora_merged_" + base)).string();
    lora::merge_adapters({test::golden_path(base), adapters, c.merged_path, type});
    Model runtime = Model::load(test::golden_path(base));
    runtime.attach_lora(adapters);
    c.runtime = logits_of(runtime);
    c.merged = logits_of(Model::load(c.merged_path));
    return c;
}

double max_relative(const std::vector<float>& x, const std::vector<float>& y) {
    double max_y = 0, max_diff = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        max_y = std::max(max_y, std::abs(double(y[i])));
        max_diff = std::max(max_diff, std::abs(double(x[i]) - y[i]));
    }
    return max_diff / max_y;
}

// Bounds: 10x the measured max |Δlogit| / max |logit| over all positions (simd build), beside each.
TEST(LoraMerge, MergedF32ModelGivesTheRuntimeLogits) {
    const Compared c = merge_and_run("llama-f32.gguf", {{lora_path("llama-f32.lora-a.gguf"), 1.0f}});
    const double measured = max_relative(c.merged, c.runtime);
    std::printf("merge llama-f32 + a: %.3g\n", measured);
    EXPECT_LE(measured, 8.3e-6);  // 8.23e-7
    std::filesystem::remove(c.merged_path);
}

TEST(LoraMerge, TwoAdaptersMergeAsTheyApply) {
    const Compared c = merge_and_run("llama-f32.gguf", {{lora_path("llama-f32.lora-a.gguf"), 0.5f},
                                                        {lora_path("llama-f32.lora-b.gguf"), 2.0f}});
    const double measured = max_relative(c.merged, c.runtime);
    std::printf("merge llama-f32 + a:0.5 + b:2: %.3g\n", measured);
    EXPECT_LE(measured, 9.9e-6);  // 9.92e-7
    std::filesystem::remove(c.merged_path);
}

TEST(LoraMerge, QuantizedBaseKeepsItsTypesAndUntouchedTensorsBytes) {
    const Compared c = merge_and_run("qwen3-q8_0.gguf", {{lora_path("qwen3-q8_0.lora.gguf"), 1.0f}});
    const gguf::GgufFile base = gguf::GgufFile::open(test::golden_path("qwen3-q8_0.gguf"));
    const gguf::GgufFile merged = gguf::GgufFile::open(c.merged_path);
    ASSERT_EQ(merged.tensors().size(), base.tensors().size());
    EXPECT_EQ(merged.metadata().size(), base.metadata().size());
    std::size_t changed = 0;
    for (const gguf::TensorInfo& info : base.tensors()) {
        const gguf::TensorInfo& out = merged.tensor_info(info.name);
        EXPECT_EQ(out.dtype, info.dtype) << info.name;
        const auto a = base.tensor_bytes(info), b = merged.tensor_bytes(out);
        const bool same = std::equal(a.begin(), a.end(), b.begin(), b.end());
        const bool adapted = info.name.find("attn_") != std::string::npos && info.name.find("norm") == std::string::npos;
        const bool ffn = info.name.find("ffn_") != std::string::npos && info.name.find("norm") == std::string::npos;
        EXPECT_EQ(same, !(adapted || ffn)) << info.name;
        changed += same ? 0 : 1;
    }
    EXPECT_EQ(changed, 14u);  // 2 layers x 7 weights
    // The merged weights rounded to Q8_0 (run time keeps B A in f32): the same argmax, logits
    // close by cosine (bound 10x the worst position measured).
    const std::size_t n_vocab = c.runtime.size() / kPrompt.size();
    double worst = 0;
    for (std::size_t pos = 0; pos < kPrompt.size(); ++pos) {
        const auto x = c.merged.begin() + static_cast<std::ptrdiff_t>(pos * n_vocab);
        const auto y = c.runtime.begin() + static_cast<std::ptrdiff_t>(pos * n_vocab);
        EXPECT_EQ(std::max_element(x, x + static_cast<std::ptrdiff_t>(n_vocab)) - x,
                  std::max_element(y, y + static_cast<std::ptrdiff_t>(n_vocab)) - y) << "position " << pos;
        double dot = 0, xx = 0, yy = 0;
        for (std::size_t i = 0; i < n_vocab; ++i) {
            dot += double(x[i]) * y[i];
            xx += double(x[i]) * x[i];
            yy += double(y[i]) * y[i];
        }
        const double cosine = dot / std::sqrt(xx * yy);
        worst = std::max(worst, 1.0 - cosine);
        EXPECT_LE(1.0 - cosine, 9.8e-3) << "position " << pos;  // worst 9.75e-4
    }
    std::printf("merge qwen3-q8_0: 1 - worst cosine %.3g\n", worst);
    std::filesystem::remove(c.merged_path);
}

TEST(LoraMerge, QuantizeChoosesTheMergedWeightsType) {
    const std::string out = (std::filesystem::temp_directory_path() / "forge_lora_merged_q8.gguf").string();
    lora::merge_adapters({test::golden_path("llama-f32.gguf"), {{lora_path("llama-f32.lora-b.gguf"), 1.0f}}, out, DType::Q8_0});
    const gguf::GgufFile merged = gguf::GgufFile::open(out);
    EXPECT_EQ(merged.tensor_info("blk.0.attn_q.weight").dtype, DType::Q8_0);
    EXPECT_EQ(merged.tensor_info("blk.0.attn_k.weight").dtype, DType::F32);  // lora-b leaves k alone
    std::filesystem::remove(out);
}

TEST(LoraMerge, RefusesAnAdapterForAnotherModel) {
    const std::string out = (std::filesystem::temp_directory_path() / "forge_lora_never.gguf").string();
    EXPECT_THROW(lora::merge_adapters({test::golden_path("llama-f32.gguf"), {{lora_path("qwen3-q8_0.lora.gguf"), 1.0f}}, out, {}}),
                 FormatError);
    EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace forge::llm
