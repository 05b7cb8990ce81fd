#include "kernels/rope.h"

#include <algorithm>
#include <cmath>

namespace forge::kernels::scalar {

namespace {

// YaRN's share of the extrapolated angle for pair i: 1 below corr_low, 0 past corr_high.
double extrapolation_mix(const RopeFrequencies& f, std::size_t pair) {
    if (f.ext_factor == 0.0f) return 0.0;
    const double width = std::max(0.001, static_cast<double>(f.corr_high) - f.corr_low);
    const double ramp = std::clamp((static_cast<double>(pair) - f.corr_low) / width, 0.0, 1.0);
    return f.ext_factor * (1.0 - ramp);
}

}  // namespace

void rope_angles(double position, const RopeFrequencies& f, std::span<float> cos, std::span<float> sin) noexcept {
    const double n_rot = 2.0 * static_cast<double>(cos.size());
    for (std::size_t i = 0; i < cos.size(); ++i) {
        const double divisor = f.freq_divisors.empty() ? 1.0 : f.freq_divisors[i];
        const double extrapolated = position * std::pow(static_cast<double>(f.theta_base), -2.0 * i / n_rot) / divisor;
        const double interpolated = f.freq_scale * extrapolated;
        const double mix = extrapolation_mix(f, i);
        const double theta = interpolated * (1.0 - mix) + extrapolated * mix;
        cos[i] = static_cast<float>(std::cos(theta) * f.mscale);
        sin[i] = static_cast<float>(std::sin(theta) * f.mscale);
    }
}

void rope_angles(double position, float theta_base, float freq_scale, std::span<float> cos,
                 std::span<float> sin) noexcept {
    RopeFrequencies f;
    f.theta_base = theta_base;
    f.freq_scale = freq_scale;
    rope_angles(position, f, cos, sin);
}

void rope(std::span<const float> x, std::int64_t head_dim, RopeMode mode, RopeRotation rotation,
          std::span<float> y) noexcept {
    const std::size_t dim = static_cast<std::size_t>(head_dim);
    const std::size_t half = rotation.cos.size();
    for (std::size_t head = 0; head < x.size() / dim; ++head) {
        const std::span<const float> in = x.subspan(head * dim, dim);
        const std::span<float> out = y.subspan(head * dim, dim);
        for (std::size_t i = 0; i < half; ++i) {
            // The two dims of pair i.
            const std::size_t first = mode == RopeMode::Normal ? 2 * i : i;
            const std::size_t second = mode == RopeMode::Normal ? 2 * i + 1 : i + half;
            const float a = in[first], b = in[second];
            const float c = rotation.cos[i], s = rotation.sin[i];
            out[first] = a * c - b * s;
            out[second] = a * s + b * c;
        }
        std::copy(in.begin() + static_cast<std::ptrdiff_t>(2 * half), in.end(),
                  out.begin() + static_cast<std::ptrdiff_t>(2 * half));
    }
}

}  // namespace forge::kernels::scalar
