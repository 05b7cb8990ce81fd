// NAM's activations on one batch of floats: shared by the element-wise activation kernel
// and the fused WaveNet layer, which applies them to accumulators still in registers.
#pragma once

#include "kernels/nam_activation.h"
#include "kernels/simd/vector_math.h"

namespace forge::kernels::simd {

inline Batch nam_sigmoid(Batch x) { return Batch(1.0f) / (Batch(1.0f) + xsimd::exp(-x)); }

// Core's fast_tanh, lane-wise (see kernels/scalar/nam_activation.cpp).
inline Batch nam_fast_tanh(Batch x) {
    const Batch ax = xsimd::abs(x);
    const Batch x2 = x * x;
    const Batch num = x * (Batch(2.45550750702956f) + Batch(2.45550750702956f) * ax +
                           (Batch(0.893229853513558f) + Batch(0.821226666969744f) * ax) * x2);
    const Batch den = Batch(2.44506634652299f) +
                      (Batch(2.44506634652299f) + x2) * xsimd::abs(x + Batch(0.814642734961073f) * x * ax);
    return num / den;
}

inline Batch nam_clamp(Batch x, float low, float high) { return xsimd::min(xsimd::max(x, Batch(low)), Batch(high)); }

inline Batch nam_leaky_hardtanh(Batch v, const NamActivationParams& p) {
    const Batch below = (v - Batch(p.min_val)) * Batch(p.min_slope) + Batch(p.min_val);
    const Batch above = (v - Batch(p.max_val)) * Batch(p.max_slope) + Batch(p.max_val);
    return xsimd::select(v < Batch(p.min_val), below, xsimd::select(v > Batch(p.max_val), above, v));
}

// f(v) for the activation `op`. The switch is on a value fixed for the whole call, so it
// predicts perfectly; callers with long rows switch once outside their loop instead.
inline Batch nam_activate(NamActivation op, const NamActivationParams& p, Batch v) {
    switch (op) {
        case NamActivation::Identity: return v;
        case NamActivation::Tanh: return xsimd::tanh(v);
        case NamActivation::FastTanh: return nam_fast_tanh(v);
        case NamActivation::Hardtanh: return nam_clamp(v, -1.0f, 1.0f);
        case NamActivation::ReLU: return xsimd::select(v > Batch(0.0f), v, Batch(0.0f));
        case NamActivation::LeakyReLU: return xsimd::select(v > Batch(0.0f), v, Batch(p.negative_slope) * v);
        case NamActivation::Sigmoid: return nam_sigmoid(v);
        case NamActivation::SiLU: return v * nam_sigmoid(v);
        case NamActivation::Hardswish: return v * nam_clamp(v + Batch(3.0f), 0.0f, 6.0f) * Batch(1.0f / 6.0f);
        case NamActivation::LeakyHardtanh: return nam_leaky_hardtanh(v, p);
        case NamActivation::Softsign: return v / (Batch(1.0f) + xsimd::abs(v));
    }
    return v;
}

}  // namespace forge::kernels::simd
