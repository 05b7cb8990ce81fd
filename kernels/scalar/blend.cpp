#include "kernels/blend.h"

namespace forge::kernels::scalar {

void blend(std::span<float> out, std::span<const float> alpha, std::span<const float> pre) noexcept {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = alpha[i] * out[i] + (1.0f - alpha[i]) * pre[i];
}

}  // namespace forge::kernels::scalar
