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
    if (op == NamActivation::Identity) return;
    with_activation(op, p, [x](auto f) { map(x, f); });
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
