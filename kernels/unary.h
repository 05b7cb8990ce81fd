// Element-wise functions of one f32 input: y[i] = f(x[i]).
//
// y may be the same memory as x (in place); otherwise the two must not overlap.
#pragma once

#include <span>

namespace forge::kernels {

enum class UnaryOp {
    Exp,
    Log,
    Sqrt,
    Rsqrt,     // 1 / sqrt(x)
    Tanh,
    Sigmoid,   // 1 / (1 + exp(-x))
    Silu,      // x * sigmoid(x)
    GeluTanh,  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), the GPT-2 approximation
    GeluErf,   // 0.5 x (1 + erf(x / sqrt(2))), the exact GELU
    Relu,      // max(x, 0)
    Neg,
    Abs,
};

namespace scalar { void unary(UnaryOp op, std::span<const float> x, std::span<float> y) noexcept; }
namespace simd { void unary(UnaryOp op, std::span<const float> x, std::span<float> y) noexcept; }

}  // namespace forge::kernels
