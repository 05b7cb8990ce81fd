// One pre-norm transformer block (causal attention with NeoX RoPE + SwiGLU MLP), built from
// nn/'s modules, against PyTorch: the loss and the gradient of every parameter
// (tools/make_autograd_goldens.py).
#include "core/autograd/ag.h"
#include "nn/parameter_set.h"
#include "nn/transformer_block.h"

#include "test/core/autograd/golden.h"

#include <cmath>
#include <map>

namespace forge::ag {
namespace {

using testing::golden_f32;
using testing::loss_matches;
using testing::matches_golden;

// 10x the agreement measured with the float64 golden (simd and scalar builds): loss 6.26e-8
// relative, worst gradient 5.0e-7 of its tensor's largest element (scalar build).
constexpr double kLossBound = 6.3e-7, kGradBound = 5.0e-6;

// The golden's parameter names -> nn's (GGUF) names.
const std::map<std::string, std::string> kNames = {
    {"norm1", "attn_norm.weight"}, {"wq", "attn_q.weight"},       {"wk", "attn_k.weight"},
    {"wv", "attn_v.weight"},       {"wo", "attn_output.weight"}, {"norm2", "ffn_norm.weight"},
    {"w_gate", "ffn_gate.weight"}, {"w_up", "ffn_up.weight"},     {"w_down", "ffn_down.weight"},
};

TEST(TorchGolden, PreNormTransformerBlock) {
    const auto golden = testing::load_golden("transformer.json");
    const Tensor x = golden_f32(golden["inputs"]["x"]);
    const Tensor target = golden_f32(golden["inputs"]["target"]);
    const std::int64_t dim = x.size(2), heads = 2;
    const Tensor w_up = golden_f32(golden["params"]["w_up"]);

    nn::TransformerBlockConfig config;
    config.attention = {.dim = dim, .n_head = heads, .n_kv_head = heads, .head_dim = dim / heads};
    config.mlp = {.dim = dim, .hidden = w_up.size(0), .activation = nn::MlpActivation::SwiGLU};
    config.norm_eps = 1e-5f;
    nn::ParameterSet params;
    const auto block = nn::TransformerBlock::make(params, "", config, {nn::Init::zeros(), nn::Init::zeros()});
    checkpoint::TensorMap values;
    for (const auto& [name, value] : golden["params"].items()) values[kNames.at(name)] = golden_f32(value);
    params.load_state_dict(values, "transformer.json");

    const Tensor loss = ag::mse(block(x), target);
    backward(loss);

    const double want = golden["loss"].get<double>();
    EXPECT_TRUE(loss_matches(loss.item(), want, kLossBound));
    for (const auto& [name, value] : golden["grads"].items()) {
        EXPECT_TRUE(matches_golden(grad(params.at(kNames.at(name))), value, kGradBound)) << name;
    }
}

}  // namespace
}  // namespace forge::ag
