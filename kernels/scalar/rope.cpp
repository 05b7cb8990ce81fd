#include "kernels/rope.h"

#include <algorithm>
#include <cmath>

namespace forge::kernels::scalar {

void rope_angles(double position, float theta_base, float freq_scale, std::span<float> cos,
                 std::span<float> sin) noexcept {
    const double n_rot = 2.0 * static_cast<double>(cos.size());
    for (std::size_t i = 0; i < cos.size(); ++i) {
        const double theta = position * freq_scale * std::pow(static_cast<double>(theta_base), -2.0 * i / n_rot);
        cos[i] = static_cast<float>(std::cos(theta));
        sin[i] = static_cast<float>(std::sin(theta));
    }
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
