// Rotary position embedding (RoPE), as llama.cpp's ggml_rope_ext without YaRN.
//
// The first n_rot dims of each head are split into n_rot/2 pairs; pair i is rotated by the
// angle theta_i = position * freq_scale * theta_base^(-2i / n_rot). Dims past n_rot pass
// through unchanged. Which dims form pair i depends on the mode:
//   Normal: (2i, 2i + 1)          llama
//   Neox:   (i, i + n_rot / 2)    GPT-NeoX, qwen2, qwen3
#pragma once

#include <cstdint>
#include <span>

namespace forge::kernels {

enum class RopeMode { Normal, Neox };

// The rotation of every head at one position, shared by all of them.
struct RopeRotation {
    std::span<const float> cos;  // n_rot / 2 entries
    std::span<const float> sin;  // n_rot / 2 entries
};

// Fill cos[i], sin[i] for the n_rot / 2 = cos.size() angles at `position`. The angles are
// computed in double precision so that large positions keep their accuracy.
namespace scalar {
void rope_angles(double position, float theta_base, float freq_scale, std::span<float> cos,
                 std::span<float> sin) noexcept;
}
namespace simd {
void rope_angles(double position, float theta_base, float freq_scale, std::span<float> cos,
                 std::span<float> sin) noexcept;
}

// Rotate x, a run of whole heads of head_dim values at one position, into y (which may be x).
// n_rot = 2 * rotation.cos.size() <= head_dim.
namespace scalar {
void rope(std::span<const float> x, std::int64_t head_dim, RopeMode mode, RopeRotation rotation,
          std::span<float> y) noexcept;
}
namespace simd {
void rope(std::span<const float> x, std::int64_t head_dim, RopeMode mode, RopeRotation rotation,
          std::span<float> y) noexcept;
}

}  // namespace forge::kernels
