#include "kernels/blend.h"

#include "kernels/simd/vector_math.h"

namespace forge::kernels::simd {

void blend(std::span<float> out, std::span<const float> alpha, std::span<const float> pre) noexcept {
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
