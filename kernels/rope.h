// Rotary position embedding (RoPE), as llama.cpp's ggml_rope_ext.
//
// The first n_rot dims of each head are split into n_rot/2 pairs; pair i is rotated by the
// angle theta_i = position * freq_scale * theta_base^(-2i / n_rot). Dims past n_rot pass
// through unchanged. Context-extension schemes change the angles (RopeFrequencies below):
// per-pair divisors (Llama 3.1's rope_freqs), YaRN's blend of interpolated and extrapolated
// angles and its magnitude scale. Which dims form pair i depends on the mode:
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

// How the angle of pair i is made from the position. With the defaults it is plain RoPE with
// linear interpolation (freq_scale). Let extrap_i = position * theta_base^(-2i / n_rot) / d_i
// (d_i = freq_divisors[i], 1 when empty) and interp_i = freq_scale * extrap_i. Then
//   theta_i = interp_i * (1 - mix_i) + extrap_i * mix_i,
//   mix_i   = ext_factor * (1 - clamp((i - corr_low) / max(0.001, corr_high - corr_low), 0, 1))
// so pairs below corr_low (fast rotations) keep their trained angle, pairs past corr_high are
// interpolated, and a ramp joins them (YaRN; ext_factor = 0 turns it off). cos and sin are
// scaled by mscale, which scales q·k by mscale^2 (YaRN's attention temperature).
struct RopeFrequencies {
    float theta_base = 10000.0f;
    float freq_scale = 1.0f;
    std::span<const float> freq_divisors;  // empty, or n_rot / 2 values
    float ext_factor = 0.0f;
    float corr_low = 0.0f, corr_high = 0.0f;  // in pairs
    float mscale = 1.0f;
};

// Fill cos[i], sin[i] for the n_rot / 2 = cos.size() angles at `position`. The angles are
// computed in double precision so that large positions keep their accuracy.
namespace scalar {
void rope_angles(double position, const RopeFrequencies& frequencies, std::span<float> cos,
                 std::span<float> sin) noexcept;
void rope_angles(double position, float theta_base, float freq_scale, std::span<float> cos,
                 std::span<float> sin) noexcept;
}
namespace simd {
void rope_angles(double position, const RopeFrequencies& frequencies, std::span<float> cos,
                 std::span<float> sin) noexcept;
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
