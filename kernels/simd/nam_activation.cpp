#include "kernels/nam_activation.h"

#include "kernels/simd/vector_math.h"

namespace forge::kernels::simd {
namespace {

Batch sigmoid(Batch x) { return Batch(1.0f) / (Batch(1.0f) + xsimd::exp(-x)); }

// Core's fast_tanh, lane-wise (see kernels/scalar/nam_activation.cpp).
Batch fast_tanh(Batch x) {
    const Batch ax = xsimd::abs(x);
    const Batch x2 = x * x;
    const Batch num = x * (Batch(2.45550750702956f) + Batch(2.45550750702956f) * ax +
                           (Batch(0.893229853513558f) + Batch(0.821226666969744f) * ax) * x2);
    const Batch den = Batch(2.44506634652299f) +
                      (Batch(2.44506634652299f) + x2) * xsimd::abs(x + Batch(0.814642734961073f) * x * ax);
    return num / den;
}

Batch clamp(Batch x, float low, float high) { return xsimd::min(xsimd::max(x, Batch(low)), Batch(high)); }

template <typename F>
void map(std::span<float> x, F f) {
    map_batches(std::span<const float>(x.data(), x.size()), x, f);
}

}  // namespace

void nam_activation(NamActivation op, const NamActivationParams& p, std::span<float> x) noexcept {
    switch (op) {
        case NamActivation::Identity: return;
        case NamActivation::Tanh: map(x, [](Batch v) { return xsimd::tanh(v); }); return;
        case NamActivation::FastTanh: map(x, fast_tanh); return;
        case NamActivation::Hardtanh: map(x, [](Batch v) { return clamp(v, -1.0f, 1.0f); }); return;
        case NamActivation::ReLU:
            map(x, [](Batch v) { return xsimd::select(v > Batch(0.0f), v, Batch(0.0f)); });
            return;
        case NamActivation::LeakyReLU:
            map(x, [s = p.negative_slope](Batch v) { return xsimd::select(v > Batch(0.0f), v, Batch(s) * v); });
            return;
        case NamActivation::Sigmoid: map(x, sigmoid); return;
        case NamActivation::SiLU: map(x, [](Batch v) { return v * sigmoid(v); }); return;
        case NamActivation::Hardswish:
            map(x, [](Batch v) { return v * clamp(v + Batch(3.0f), 0.0f, 6.0f) * Batch(1.0f / 6.0f); });
            return;
        case NamActivation::LeakyHardtanh:
            map(x, [&p](Batch v) {
                const Batch below = (v - Batch(p.min_val)) * Batch(p.min_slope) + Batch(p.min_val);
                const Batch above = (v - Batch(p.max_val)) * Batch(p.max_slope) + Batch(p.max_val);
                return xsimd::select(v < Batch(p.min_val), below, xsimd::select(v > Batch(p.max_val), above, v));
            });
            return;
        case NamActivation::Softsign: map(x, [](Batch v) { return v / (Batch(1.0f) + xsimd::abs(v)); }); return;
    }
}

void nam_gate(std::span<float> out, std::span<const float> gate) noexcept {
    const std::size_t n = out.size();
    std::size_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
        (Batch::load_unaligned(out.data() + i) * Batch::load_unaligned(gate.data() + i)).store_unaligned(out.data() + i);
    for (; i < n; ++i) out[i] *= gate[i];
}

void nam_blend(std::span<float> out, std::span<const float> alpha, std::span<const float> pre) noexcept {
    const std::size_t n = out.size();
    std::size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        const Batch a = Batch::load_unaligned(alpha.data() + i);
        const Batch y = a * Batch::load_unaligned(out.data() + i) + (Batch(1.0f) - a) * Batch::load_unaligned(pre.data() + i);
        y.store_unaligned(out.data() + i);
    }
    for (; i < n; ++i) out[i] = alpha[i] * out[i] + (1.0f - alpha[i]) * pre[i];
}

}  // namespace forge::kernels::simd
