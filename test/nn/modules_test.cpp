// nn's modules: grouped-query attention equals full attention with the shared key/value
// heads copied out, QK-norm and RoPE commute when the norm has no weight, gradients check
// numerically, and a forward without gradients gives the same values.
#include "core/autograd/ag.h"
#include "core/autograd/gradcheck.h"
#include "core/random/random_tensor.h"
#include "nn/attention.h"
#include "nn/linear.h"
#include "nn/mlp.h"
#include "nn/transformer_block.h"

#include <gtest/gtest.h>

namespace forge::nn {
namespace {

AttentionConfig small_attention(std::int64_t kv_heads) {
    return {.dim = 8, .n_head = 4, .n_kv_head = kv_heads, .head_dim = 4, .qk_norm = true};
}

TEST(Attention, GroupedQueryEqualsFullAttentionWithRepeatedKeyValueHeads) {
    ParameterSet gqa_params(5);
    const auto gqa = Attention::make(gqa_params, "", small_attention(2), Init::normal(0.5f), Init::normal(0.5f));
    // The same weights with every key/value head written out once per query head it serves.
    ParameterSet full_params(5);
    auto full = Attention::make(full_params, "", small_attention(4), Init::zeros(), Init::zeros());
    checkpoint::TensorMap values = gqa_params.state_dict();
    for (const char* name : {"attn_k.weight", "attn_v.weight"}) {
        const Tensor w = values[name];  // [2 heads * 4, 8]
        std::vector<float> rows;
        for (int head = 0; head < 4; ++head) {
            const auto part = w.narrow(0, (head / 2) * 4, 4).contiguous().to_vector();
            rows.insert(rows.end(), part.begin(), part.end());
        }
        values[name] = Tensor::from(std::span<const float>(rows), Shape{16, 8});
    }
    full_params.load_state_dict(values, "test");
    const Tensor x = random::normal_tensor({2, 5, 8}, 9);
    const auto got = gqa(x).to_vector(), want = full(x).to_vector();
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f) << i;
}

TEST(Attention, IsCausal) {
    ParameterSet params(6);
    const auto attention = Attention::make(params, "", small_attention(2), Init::normal(0.5f), Init::normal(0.5f));
    Tensor x = random::normal_tensor({1, 6, 8}, 10);
    const auto before = attention(x).narrow(1, 0, 3).contiguous().to_vector();
    Tensor changed = x.clone();
    for (std::int64_t i = 3 * 8; i < 6 * 8; ++i) changed.data<float>()[i] += 1.0f;  // positions 3..5
    const auto after = attention(changed).narrow(1, 0, 3).contiguous().to_vector();
    EXPECT_EQ(before, after);
}

// PyTorch's nn.Linear draws its bias like its weight; a bias init says so (the default is zeros).
TEST(Linear, BiasIsZerosOrDrawnAsAsked) {
    ParameterSet params(3);
    const Init init = Init::fan_in_uniform(4);
    const Linear zero_bias = Linear::make(params, "a", 4, 2, init, true);
    EXPECT_EQ(zero_bias.bias.to_vector(), std::vector<float>(2, 0.0f));
    const Linear drawn = Linear::make(params, "b", 4, 2, init, init);
    EXPECT_EQ(params.all()[2].name, "b.weight");
    EXPECT_EQ(params.all()[3].name, "b.bias");
    EXPECT_NE(drawn.bias.to_vector(), std::vector<float>(2, 0.0f));
    for (const float v : drawn.bias.to_vector()) EXPECT_LE(std::fabs(v), 0.5f);
    EXPECT_FALSE(Linear::make(params, "c", 4, 2, init).bias.defined());
}

TEST(TransformerBlock, GradientsMatchCentralDifferences) {
    for (const MlpActivation activation : {MlpActivation::SwiGLU, MlpActivation::ReluSquared}) {
        TransformerBlockConfig config;
        config.attention = small_attention(2);
        config.mlp = {.dim = 8, .hidden = 12, .activation = activation};
        ParameterSet params(7);
        const auto block = TransformerBlock::make(params, "blk.0.", config, {Init::normal(0.4f), Init::normal(0.4f)});
        std::vector<Tensor> inputs = {ag::requires_grad(random::normal_tensor({2, 3, 8}, 11))};
        for (const Tensor& p : params.trainable()) inputs.push_back(p);
        // Central differences of a whole f32 block: roundoff through RMSNorm, softmax and the MLP
        // (and ReLU²'s kink) dominate; measured worst |analytic - numeric| at eps 5e-3: 1.8e-4
        // (SwiGLU), 6.4e-4 (ReLU²); smaller eps is worse (2.8e-3 at 1e-3). Bound: 10x, absolute.
        ag::GradcheckOptions options;
        options.rtol = 0.0;
        options.atol = 6.4e-3;
        const auto result = ag::gradcheck([&](std::span<const Tensor> in) { return block(in[0]); }, inputs, options);
        EXPECT_TRUE(result.ok) << result.report;
    }
}

TEST(TransformerBlock, SameValuesWithAndWithoutGradients) {
    TransformerBlockConfig config;
    config.attention = small_attention(1);
    config.mlp = {.dim = 8, .hidden = 16};
    ParameterSet params(8);
    const auto block = TransformerBlock::make(params, "", config, {Init::normal(0.3f), Init::zeros()});
    const Tensor x = random::normal_tensor({2, 4, 8}, 12);
    const auto recorded = block(x).to_vector();
    ag::NoGradScope no_grad;
    EXPECT_EQ(block(x).to_vector(), recorded);
}

}  // namespace
}  // namespace forge::nn
