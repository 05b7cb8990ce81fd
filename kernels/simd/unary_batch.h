// Each function of kernels/unary.h on one batch of floats, and with_unary, which hands a loop
// the one `op` names: shared by the element-wise unary kernel and the fused NAM WaveNet layer,
// which applies them to accumulators still in registers.
#pragma once

#include "kernels/simd/vector_math.h"
#include "kernels/unary.h"

namespace forge::kernels::simd {

inline constexpr float kSqrt2OverPi = 0.79788456080286535588f;
inline constexpr float kInvSqrt2 = 0.70710678118654752440f;

// The same cancellation-free forms as the scalar kernels (see kernels/scalar/unary.cpp).
[[gnu::always_inline]] inline Batch gelu_tanh(Batch x) {
    const Batch u = kSqrt2OverPi * xsimd::fma(Batch(0.044715f) * x, x * x, x);
    return x / (Batch(1.0f) + xsimd::exp(Batch(-2.0f) * u));
}

[[gnu::always_inline]] inline Batch gelu_erf(Batch x) { return Batch(0.5f) * x * erfc(-x * Batch(kInvSqrt2)); }

// NaN passes through, as in the scalar kernel: NaN < 0 is false.
[[gnu::always_inline]] inline Batch relu(Batch x) { return xsimd::select(x < Batch(0.0f), Batch(0.0f), x); }

[[gnu::always_inline]] inline Batch clamp(Batch x, float low, float high) {
    return xsimd::min(xsimd::max(x, Batch(low)), Batch(high));
}

[[gnu::always_inline]] inline Batch leaky_hardtanh(Batch v, const UnaryParams& p) {
    const Batch below = (v - Batch(p.min_val)) * Batch(p.min_slope) + Batch(p.min_val);
    const Batch above = (v - Batch(p.max_val)) * Batch(p.max_slope) + Batch(p.max_val);
    return xsimd::select(v < Batch(p.min_val), below, xsimd::select(v > Batch(p.max_val), above, v));
}

// Calls body(f) with f the batch function of `op` as its own type, so each case inlines f into
// the caller's loop: the switch runs once per call, not once per vector. Always inlined, and so
// is each f: an f called out of line (GCC declines to inline into a function as large as the
// fused NAM layer's tile) clobbers every vector register (the x86-64 calling convention
// saves none), so a caller's tile of accumulators would be spilled to the stack and reloaded
// around each call.
#define FORGE_INLINE __attribute__((always_inline))
template <typename Body>
[[gnu::always_inline]] inline void with_unary(UnaryOp op, const UnaryParams& p, Body&& body) {
    switch (op) {
        case UnaryOp::Exp: body([](Batch v) FORGE_INLINE { return xsimd::exp(v); }); return;
        case UnaryOp::Log: body([](Batch v) FORGE_INLINE { return xsimd::log(v); }); return;
        case UnaryOp::Sqrt: body([](Batch v) FORGE_INLINE { return xsimd::sqrt(v); }); return;
        // Not xsimd::rsqrt: that is the hardware estimate (12 to 23 bits), not a correct 1/sqrt.
        case UnaryOp::Rsqrt: body([](Batch v) FORGE_INLINE { return Batch(1.0f) / xsimd::sqrt(v); }); return;
        case UnaryOp::Tanh: body([](Batch v) FORGE_INLINE { return exact_tanh(v); }); return;
        case UnaryOp::Sigmoid: body([](Batch v) FORGE_INLINE { return sigmoid(v); }); return;
        case UnaryOp::Silu: body([](Batch v) FORGE_INLINE { return v * sigmoid(v); }); return;
        case UnaryOp::GeluTanh: body([](Batch v) FORGE_INLINE { return gelu_tanh(v); }); return;
        case UnaryOp::GeluErf: body([](Batch v) FORGE_INLINE { return gelu_erf(v); }); return;
        case UnaryOp::Relu: body([](Batch v) FORGE_INLINE { return relu(v); }); return;
        case UnaryOp::Neg: body([](Batch v) FORGE_INLINE { return -v; }); return;
        case UnaryOp::Abs: body([](Batch v) FORGE_INLINE { return xsimd::abs(v); }); return;
        case UnaryOp::Identity: body([](Batch v) FORGE_INLINE { return v; }); return;
        case UnaryOp::FastTanh: body([](Batch v) FORGE_INLINE { return fast_tanh(v); }); return;
        case UnaryOp::Hardtanh: body([](Batch v) FORGE_INLINE { return clamp(v, -1.0f, 1.0f); }); return;
        case UnaryOp::LeakyRelu:
            body([s = p.negative_slope](Batch v) FORGE_INLINE { return xsimd::select(v > Batch(0.0f), v, Batch(s) * v); });
            return;
        case UnaryOp::Hardswish:
            body([](Batch v) FORGE_INLINE { return v * clamp(v + Batch(3.0f), 0.0f, 6.0f) * Batch(1.0f / 6.0f); });
            return;
        case UnaryOp::LeakyHardtanh: body([p](Batch v) FORGE_INLINE { return leaky_hardtanh(v, p); }); return;
        case UnaryOp::Softsign: body([](Batch v) FORGE_INLINE { return v / (Batch(1.0f) + xsimd::abs(v)); }); return;
    }
}

#undef FORGE_INLINE

}  // namespace forge::kernels::simd
