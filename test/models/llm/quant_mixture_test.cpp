// The llama-quantize policy (models/llm/quant_mixture.h): which type each tensor of a model gets.
#include "core/quant/quantize.h"
#include "models/llm/quant_mixture.h"

#include <gtest/gtest.h>

#include <map>

namespace forge::llm {
namespace {

TensorFacts facts(std::string name, std::vector<std::int64_t> dims) { return {std::move(name), DType::F32, std::move(dims)}; }

// A two-layer llama-shaped model with an untied output.
std::vector<TensorFacts> small_model(bool with_output) {
    std::vector<TensorFacts> t = {facts("token_embd.weight", {256, 1000}), facts("output_norm.weight", {256})};
    if (with_output) t.push_back(facts("output.weight", {256, 1000}));
    for (int l = 0; l < 8; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        for (const char* n : {"attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_output.weight", "ffn_gate.weight",
                              "ffn_up.weight"}) {
            t.push_back(facts(p + n, {256, 256}));
        }
        t.push_back(facts(p + "ffn_down.weight", {512, 256}));
        t.push_back(facts(p + "attn_norm.weight", {256}));
    }
    return t;
}

std::map<std::string, TypeChoice> choose_all(const char* type, bool pure, bool with_output) {
    const auto tensors = small_model(with_output);
    Mixture mixture(*file_type_from_name(type), pure, {"llama", 8, 8, 2, 0}, tensors);
    std::map<std::string, TypeChoice> out;
    for (const auto& t : tensors) out[t.name] = mixture.choose(t);
    return out;
}

TEST(QuantMixture, FollowsLlamaQuantize) {
    auto c = choose_all("Q4_0", false, true);
    EXPECT_FALSE(c["output_norm.weight"].quantized);  // 1-D: kept
    EXPECT_EQ(c["output.weight"].dtype, DType::Q6_K);  // the output matrix gets Q6_K
    EXPECT_EQ(c["token_embd.weight"].dtype, DType::Q4_0);
    EXPECT_EQ(c["blk.3.ffn_down.weight"].dtype, DType::Q4_0);

    c = choose_all("Q4_0", false, false);  // tied: token_embd is the output
    EXPECT_EQ(c["token_embd.weight"].dtype, DType::Q6_K);

    c = choose_all("Q4_K", false, true);  // = Q4_K_M: more bits for some attn_v / ffn_down
    EXPECT_EQ(c["blk.0.attn_v.weight"].dtype, DType::Q6_K);
    EXPECT_EQ(c["blk.1.attn_v.weight"].dtype, DType::Q4_K);
    EXPECT_EQ(c["blk.0.ffn_down.weight"].dtype, DType::Q6_K);
    EXPECT_EQ(c["blk.0.attn_q.weight"].dtype, DType::Q4_K);

    c = choose_all("Q4_K", true, true);  // pure: no mixture, no output rule
    EXPECT_EQ(c["blk.0.attn_v.weight"].dtype, DType::Q4_K);
    EXPECT_EQ(c["output.weight"].dtype, DType::Q4_K);
    EXPECT_FALSE(c["blk.0.attn_norm.weight"].quantized);
}

TEST(QuantMixture, KQuantRowsNotMultipleOf256FallBack) {
    const std::vector<TensorFacts> t = {facts("blk.0.attn_q.weight", {96, 64}), facts("blk.0.ffn_up.weight", {40, 64})};
    Mixture mixture(*file_type_from_name("Q4_K_S"), true, {"llama", 1, 1, 1, 0}, t);
    const auto a = mixture.choose(t[0]);
    EXPECT_EQ(a.dtype, DType::Q5_0);
    EXPECT_NE(a.fallback.find("falling back to q5_0"), std::string::npos) << a.fallback;
    EXPECT_EQ(mixture.choose(t[1]).dtype, DType::F16);  // not even a multiple of 32
    EXPECT_EQ(file_type_from_name("q8_0")->id, 7);
    EXPECT_EQ(file_type_from_name("IQ2_XXS"), std::nullopt);
}

}  // namespace
}  // namespace forge::llm
