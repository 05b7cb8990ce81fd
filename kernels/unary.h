// Element-wise functions of one f32 input: y[i] = f(x[i]). The one list of them: the Tensor
// ops and autograd use the first group, NAM's real-time models (through core/infer) the
// activations, whose formulas and defaults follow NeuralAmpModelerCore (NAM/activations.h) so
// that a model renders the same samples as the reference player.
//
// y may be the same memory as x (in place); otherwise the two must not overlap.
#pragma once

#include <span>

namespace forge::kernels {

enum class UnaryOp {
    Exp,
    Log,
    Sqrt,
    Rsqrt,          // 1 / sqrt(x)
    Tanh,           // exact tanh
    Sigmoid,        // 1 / (1 + exp(-x))
    Silu,           // x * sigmoid(x)
    GeluTanh,       // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), the GPT-2 approximation
    GeluErf,        // 0.5 x (1 + erf(x / sqrt(2))), the exact GELU
    Relu,           // max(x, 0); NaN passes through
    Neg,
    Abs,
    // NAM's activations beyond the ones above; no derivative kernel (kernels/unary_grad.h).
    Identity,       // x
    FastTanh,       // Core's rational approximation of tanh (fast_tanh), opt-in
    Hardtanh,       // clamp(x, -1, 1)
    LeakyRelu,      // x > 0 ? x : negative_slope * x (PReLU runs this per channel)
    Hardswish,      // x * clamp(x + 3, 0, 6) / 6
    LeakyHardtanh,  // identity on [min_val, max_val], slopes min_slope / max_slope outside
    Softsign,       // x / (1 + |x|)
};

// The parameters of LeakyRelu and LeakyHardtanh (the other functions ignore them), with
// Core's defaults.
struct UnaryParams {
    float negative_slope = 0.01f;
    float min_val = -1.0f;
    float max_val = 1.0f;
    float min_slope = 0.01f;
    float max_slope = 0.01f;
};

namespace scalar {
void unary(UnaryOp op, std::span<const float> x, std::span<float> y, const UnaryParams& params = {}) noexcept;
}
namespace simd {
void unary(UnaryOp op, std::span<const float> x, std::span<float> y, const UnaryParams& params = {}) noexcept;
}

}  // namespace forge::kernels
