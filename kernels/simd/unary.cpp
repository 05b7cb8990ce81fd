#include "kernels/unary.h"

#include "kernels/simd/vector_math.h"

namespace forge::kernels::simd {
namespace {

constexpr float kSqrt2OverPi = 0.79788456080286535588f;
constexpr float kInvSqrt2 = 0.70710678118654752440f;

// The same cancellation-free forms as the scalar kernels (see kernels/scalar/unary.cpp).
Batch gelu_tanh(Batch x) {
    const Batch u = kSqrt2OverPi * xsimd::fma(Batch(0.044715f) * x, x * x, x);
    return x / (Batch(1.0f) + xsimd::exp(Batch(-2.0f) * u));
}

Batch gelu_erf(Batch x) { return Batch(0.5f) * x * erfc(-x * Batch(kInvSqrt2)); }

// NaN passes through, as in the scalar kernel: NaN < 0 is false.
Batch relu(Batch x) { return xsimd::select(x < Batch(0.0f), Batch(0.0f), x); }

}  // namespace

void unary(UnaryOp op, std::span<const float> x, std::span<float> y) noexcept {
    switch (op) {
        case UnaryOp::Exp: map_batches(x, y, [](Batch v) { return xsimd::exp(v); }); return;
        case UnaryOp::Log: map_batches(x, y, [](Batch v) { return xsimd::log(v); }); return;
        case UnaryOp::Sqrt: map_batches(x, y, [](Batch v) { return xsimd::sqrt(v); }); return;
        // Not xsimd::rsqrt: that is the hardware estimate (12 to 23 bits), not a correct 1/sqrt.
        case UnaryOp::Rsqrt: map_batches(x, y, [](Batch v) { return Batch(1.0f) / xsimd::sqrt(v); }); return;
        case UnaryOp::Tanh: map_batches(x, y, [](Batch v) { return xsimd::tanh(v); }); return;
        case UnaryOp::Sigmoid: map_batches(x, y, sigmoid); return;
        case UnaryOp::Silu: map_batches(x, y, [](Batch v) { return v * sigmoid(v); }); return;
        case UnaryOp::GeluTanh: map_batches(x, y, gelu_tanh); return;
        case UnaryOp::GeluErf: map_batches(x, y, gelu_erf); return;
        case UnaryOp::Relu: map_batches(x, y, relu); return;
        case UnaryOp::Neg: map_batches(x, y, [](Batch v) { return -v; }); return;
        case UnaryOp::Abs: map_batches(x, y, [](Batch v) { return xsimd::abs(v); }); return;
    }
}

}  // namespace forge::kernels::simd
