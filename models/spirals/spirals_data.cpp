#include "models/spirals/spirals_data.h"

#include "core/random/counter_rng.h"

#include <cmath>
#include <numbers>

namespace forge::spirals {

SpiralsData make_spirals(std::int64_t per_class, std::uint64_t seed, float turns, float noise) {
    const std::int64_t n = 2 * per_class;
    SpiralsData data{Tensor::empty(Shape{n, 2}), Tensor::empty(Shape{n}, DType::I64)};
    float* xy = data.points.data<float>();
    std::int64_t* label = data.labels.data<std::int64_t>();
    const std::uint64_t key = random::stream_key(seed, 0x5b1a);
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t arm = i % 2, k = i / 2;
        // Radius grows from near 0 to 1 along the arm; the second arm is the first rotated by pi.
        const double t = 0.05 + 0.95 * static_cast<double>(k) / static_cast<double>(per_class);
        const double angle = 2.0 * std::numbers::pi * turns * t + std::numbers::pi * static_cast<double>(arm);
        const auto u = static_cast<std::uint64_t>(i);
        xy[2 * i] = static_cast<float>(t * std::cos(angle)) + noise * random::normal(key, 2 * u);
        xy[2 * i + 1] = static_cast<float>(t * std::sin(angle)) + noise * random::normal(key, 2 * u + 1);
        label[i] = arm;
    }
    return data;
}

}  // namespace forge::spirals
