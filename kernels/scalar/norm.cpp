#include "kernels/norm.h"

#include <cmath>

namespace forge::kernels::scalar {
namespace {

// y[j] = x[j] * scale_j * weight[j] + bias[j], the missing weight and bias being 1 and 0.
void scale_and_shift(std::span<const float> x, float shift, float scale, std::span<const float> weight,
                     std::span<const float> bias, std::span<float> y) {
    for (std::size_t j = 0; j < x.size(); ++j) {
        float v = (x[j] - shift) * scale;
        if (!weight.empty()) v *= weight[j];
        if (!bias.empty()) v += bias[j];
        y[j] = v;
    }
}

}  // namespace

void rmsnorm(std::span<const float> x, std::span<const float> weight, float eps, std::span<float> y) noexcept {
    float sum_squares = 0.0f;
    for (float v : x) sum_squares += v * v;
    const float mean_square = sum_squares / static_cast<float>(x.size());
    scale_and_shift(x, 0.0f, 1.0f / std::sqrt(mean_square + eps), weight, {}, y);
}

void layernorm(std::span<const float> x, std::span<const float> weight, std::span<const float> bias, float eps,
               std::span<float> y) noexcept {
    const auto n = static_cast<float>(x.size());
    // The mean is summed relative to a pivot (the first element): when |mean| >> std, the
    // deviations are small and their float sum loses far less than a sum of the raw values.
    const float pivot = x.empty() ? 0.0f : x[0];
    float sum = 0.0f;
    for (float v : x) sum += v - pivot;
    const float mean = pivot + sum / n;
    // Two passes (mean first, then squared deviations): no cancellation when |mean| >> std.
    float sum_squares = 0.0f;
    for (float v : x) sum_squares += (v - mean) * (v - mean);
    const float variance = sum_squares / n;
    scale_and_shift(x, mean, 1.0f / std::sqrt(variance + eps), weight, bias, y);
}

}  // namespace forge::kernels::scalar
