#include "kernels/softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace forge::kernels::scalar {
namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();

// Largest scaled score among the visible entries: subtracting it keeps every exp <= 1.
float max_scaled(std::span<const float> x, float scale) {
    float m = -kInfinity;
    for (float v : x) m = std::max(m, scale * v);
    return m;
}

}  // namespace

void softmax(std::span<const float> x, float scale, std::size_t visible, std::span<float> y) noexcept {
    const std::size_t n = std::min(visible, x.size());
    const float m = max_scaled(x.first(n), scale);
    float total = 0.0f;
    for (std::size_t j = 0; j < n; ++j) {
        y[j] = std::exp(scale * x[j] - m);
        total += y[j];
    }
    const float inverse = 1.0f / total;
    for (std::size_t j = 0; j < n; ++j) y[j] *= inverse;
    std::fill(y.begin() + static_cast<std::ptrdiff_t>(n), y.end(), 0.0f);
}

void log_softmax(std::span<const float> x, float scale, std::size_t visible, std::span<float> y) noexcept {
    const std::size_t n = std::min(visible, x.size());
    const float m = max_scaled(x.first(n), scale);
    float total = 0.0f;
    for (std::size_t j = 0; j < n; ++j) total += std::exp(scale * x[j] - m);
    const float log_normalizer = m + std::log(total);
    for (std::size_t j = 0; j < n; ++j) y[j] = scale * x[j] - log_normalizer;
    std::fill(y.begin() + static_cast<std::ptrdiff_t>(n), y.end(), -kInfinity);
}

}  // namespace forge::kernels::scalar
