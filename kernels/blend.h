// The blend of a "blended" NAM WaveNet layer (NeuralAmpModelerCore, NAM/gating_activations.h):
// out[i] = alpha[i] * out[i] + (1 - alpha[i]) * pre[i], out already through its activation and
// pre the same values before it. (A "gated" layer's out[i] * gate[i] is kernels/binary.h's Mul.)
#pragma once

#include <span>

namespace forge::kernels {

namespace scalar { void blend(std::span<float> out, std::span<const float> alpha, std::span<const float> pre) noexcept; }
namespace simd { void blend(std::span<float> out, std::span<const float> alpha, std::span<const float> pre) noexcept; }

}  // namespace forge::kernels
