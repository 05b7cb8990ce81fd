#include "kernels/nam_activation.h"

#include "kernels/simd/nam_activation_batch.h"

namespace forge::kernels::simd {
namespace {

template <typename F>
void map(std::span<float> x, F f) {
    map_batches(std::span<const float>(x.data(), x.size()), x, f);
}

}  // namespace

void nam_activation(NamActivation op, const NamActivationParams& p, std::span<float> x) noexcept {
    switch (op) {
        case NamActivation::Identity: return;
        case NamActivation::Tanh: map(x, [](Batch v) { return xsimd::tanh(v); }); return;
        case NamActivation::FastTanh: map(x, nam_fast_tanh); return;
        case NamActivation::Hardtanh: map(x, [](Batch v) { return nam_clamp(v, -1.0f, 1.0f); }); return;
        case NamActivation::ReLU:
            map(x, [](Batch v) { return xsimd::select(v > Batch(0.0f), v, Batch(0.0f)); });
            return;
        case NamActivation::LeakyReLU:
            map(x, [s = p.negative_slope](Batch v) { return xsimd::select(v > Batch(0.0f), v, Batch(s) * v); });
            return;
        case NamActivation::Sigmoid: map(x, nam_sigmoid); return;
        case NamActivation::SiLU: map(x, [](Batch v) { return v * nam_sigmoid(v); }); return;
        case NamActivation::Hardswish:
            map(x, [](Batch v) { return v * nam_clamp(v + Batch(3.0f), 0.0f, 6.0f) * Batch(1.0f / 6.0f); });
            return;
        case NamActivation::LeakyHardtanh: map(x, [&p](Batch v) { return nam_leaky_hardtanh(v, p); }); return;
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
