// One pre-norm transformer block (causal attention with NeoX RoPE + SwiGLU MLP) against
// PyTorch: the loss and the gradient of every parameter (tools/make_autograd_goldens.py).
#include "core/autograd/ag.h"

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

constexpr std::int64_t kHeads = 2;

// [B, T, D] -> [B, H, T, hd] with NeoX RoPE at positions 0..T-1 (rope takes [B, T, H, hd]).
Tensor heads(const Tensor& x, const Tensor& positions, bool rotate) {
    const std::int64_t b = x.size(0), t = x.size(1), d = x.size(2);
    Tensor split = ag::reshape(x, Shape{b, t, kHeads, d / kHeads});
    if (rotate) split = ag::rope(split, positions, {.mode = RopeMode::Neox});
    return ag::transpose(split, 1, 2);
}

Tensor attention(const Tensor& h, std::map<std::string, Tensor>& p) {
    const std::int64_t b = h.size(0), t = h.size(1), d = h.size(2);
    const Tensor positions = Tensor::arange(t).to(DType::I64);
    const Tensor q = heads(ag::linear(h, p["wq"], {}), positions, true);
    const Tensor k = heads(ag::linear(h, p["wk"], {}), positions, true);
    const Tensor v = heads(ag::linear(h, p["wv"], {}), positions, false);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d / kHeads));
    const Tensor weights = ag::softmax(ag::matmul(q, k, false, true), scale, /*causal=*/true);
    const Tensor mixed = ag::reshape(ag::transpose(ag::matmul(weights, v), 1, 2), Shape{b, t, d});
    return ag::linear(mixed, p["wo"], {});
}

Tensor swiglu(const Tensor& h, std::map<std::string, Tensor>& p) {
    const Tensor gate = ag::silu(ag::linear(h, p["w_gate"], {}));
    return ag::linear(ag::mul(gate, ag::linear(h, p["w_up"], {})), p["w_down"], {});
}

TEST(TorchGolden, PreNormTransformerBlock) {
    const auto golden = testing::load_golden("transformer.json");
    std::map<std::string, Tensor> p;
    for (const auto& [name, value] : golden["params"].items()) p[name] = requires_grad(golden_f32(value));
    const Tensor x = golden_f32(golden["inputs"]["x"]);
    const Tensor target = golden_f32(golden["inputs"]["target"]);

    const Tensor h = ag::add(x, attention(ag::rmsnorm(x, p["norm1"], 1e-5f), p));
    const Tensor out = ag::add(h, swiglu(ag::rmsnorm(h, p["norm2"], 1e-5f), p));
    const Tensor loss = ag::mse(out, target);
    backward(loss);

    const double want = golden["loss"].get<double>();
    EXPECT_TRUE(loss_matches(loss.item(), want, kLossBound));
    for (const auto& [name, value] : golden["grads"].items()) {
        EXPECT_TRUE(matches_golden(grad(p[name]), value, kGradBound)) << name;
    }
}

}  // namespace
}  // namespace forge::ag
