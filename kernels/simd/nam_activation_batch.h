// NAM's activations on one batch of floats: shared by the element-wise activation kernel
// and the fused WaveNet layer, which applies them to accumulators still in registers.
#pragma once

#include "kernels/nam_activation.h"
#include "kernels/simd/vector_math.h"

namespace forge::kernels::simd {

// Core's fast_tanh, lane-wise (see kernels/scalar/activation_math.h).
[[gnu::always_inline]] inline Batch nam_fast_tanh(Batch x) {
    const Batch ax = xsimd::abs(x);
    const Batch x2 = x * x;
    const Batch num = x * (Batch(2.45550750702956f) + Batch(2.45550750702956f) * ax +
                           (Batch(0.893229853513558f) + Batch(0.821226666969744f) * ax) * x2);
    const Batch den = Batch(2.44506634652299f) +
                      (Batch(2.44506634652299f) + x2) * xsimd::abs(x + Batch(0.814642734961073f) * x * ax);
    return num / den;
}

// Core's fast_sigmoid, lane-wise: (fast_tanh(x / 2) + 1) / 2.
[[gnu::always_inline]] inline Batch nam_fast_sigmoid(Batch x) {
    return Batch(0.5f) * (nam_fast_tanh(x * Batch(0.5f)) + Batch(1.0f));
}

inline Batch nam_clamp(Batch x, float low, float high) { return xsimd::min(xsimd::max(x, Batch(low)), Batch(high)); }

inline Batch nam_leaky_hardtanh(Batch v, const NamActivationParams& p) {
    const Batch below = (v - Batch(p.min_val)) * Batch(p.min_slope) + Batch(p.min_val);
    const Batch above = (v - Batch(p.max_val)) * Batch(p.max_slope) + Batch(p.max_val);
    return xsimd::select(v < Batch(p.min_val), below, xsimd::select(v > Batch(p.max_val), above, v));
}

// tanh to a few ulp without branches. xsimd::tanh switches between a polynomial and an exp
// formula with data-dependent branches and a general exp (overflow and underflow checks this
// range never needs); here one formula covers every input:
//   tanh|x| = -m / (2 + m),   m = expm1(-2|x|)
//   expm1(y) = 2^n·(1 + p) - 1 = 2^n·p + (2^n - 1),   y = n·ln2 + r, |r| <= ln2/2, p = expm1(r)
// p is the Taylor series of expm1 to r^7 (truncation < 2e-8 relative). Near zero n = 0 and m = p
// keeps full relative accuracy; elsewhere 2^n - 1 is exact and |m| > 0.29, so nothing cancels.
// |x| is capped at 9, where tanh is 1 in float.
[[gnu::always_inline]] inline Batch nam_tanh(Batch x) {
    const Batch a = xsimd::min(xsimd::abs(x), Batch(9.0f));
    const Batch y = Batch(-2.0f) * a;
    const Batch n = xsimd::nearbyint(y * Batch(1.44269504088896341f));
    // r = y - n·ln2 in two steps (Cody-Waite): n·ln2_hi is exact, ln2_lo carries the rest.
    Batch r = xsimd::fma(n, Batch(-0.693145751953125f), y);
    r = xsimd::fma(n, Batch(-1.428606765330187e-06f), r);
    Batch q = Batch(1.0f / 5040.0f);
    q = xsimd::fma(q, r, Batch(1.0f / 720.0f));
    q = xsimd::fma(q, r, Batch(1.0f / 120.0f));
    q = xsimd::fma(q, r, Batch(1.0f / 24.0f));
    q = xsimd::fma(q, r, Batch(1.0f / 6.0f));
    q = xsimd::fma(q, r, Batch(0.5f));
    const Batch p = xsimd::fma(q, r * r, r);
    // 2^n from its exponent bits (-26 <= n <= 0: always a normal float).
    const Batch scale = xsimd::bitwise_cast<Batch>((xsimd::to_int(n) + IntBatch(127)) << 23);
    const Batch m = xsimd::fma(scale, p, scale - Batch(1.0f));
    const Batch t = -m / (Batch(2.0f) + m);
    return t | xsimd::bitofsign(x);  // t >= 0: set the sign bit of x
}

// Calls body(f) with f the batch function of activation `op` as its own type, so each case
// inlines f into the caller's loop: the switch runs once per call, not once per vector.
// Always inlined, so that a caller's tile of accumulators stays in registers through it.
template <typename Body>
[[gnu::always_inline]] inline void with_activation(NamActivation op, const NamActivationParams& p, Body&& body) {
    switch (op) {
        case NamActivation::Identity: body([](Batch v) { return v; }); return;
        case NamActivation::Tanh: body([](Batch v) { return nam_tanh(v); }); return;
        case NamActivation::FastTanh: body([](Batch v) { return nam_fast_tanh(v); }); return;
        case NamActivation::Hardtanh: body([](Batch v) { return nam_clamp(v, -1.0f, 1.0f); }); return;
        case NamActivation::Relu: body([](Batch v) { return xsimd::select(v > Batch(0.0f), v, Batch(0.0f)); }); return;
        case NamActivation::LeakyRelu:
            body([s = p.negative_slope](Batch v) { return xsimd::select(v > Batch(0.0f), v, Batch(s) * v); });
            return;
        case NamActivation::Sigmoid: body([](Batch v) { return sigmoid(v); }); return;
        case NamActivation::Silu: body([](Batch v) { return v * sigmoid(v); }); return;
        case NamActivation::Hardswish:
            body([](Batch v) { return v * nam_clamp(v + Batch(3.0f), 0.0f, 6.0f) * Batch(1.0f / 6.0f); });
            return;
        case NamActivation::LeakyHardtanh: body([p](Batch v) { return nam_leaky_hardtanh(v, p); }); return;
        case NamActivation::Softsign: body([](Batch v) { return v / (Batch(1.0f) + xsimd::abs(v)); }); return;
    }
}

}  // namespace forge::kernels::simd
