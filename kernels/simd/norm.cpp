#include "kernels/norm.h"

#include "kernels/simd/vector_math.h"

#include <cmath>

namespace forge::kernels::simd {
namespace {

// sum over the row of f(x[j]); the tail's unused lanes are loaded as `pad` and then zeroed
// by f, so pad must satisfy f(pad) == 0.
template <typename F>
float sum_of(std::span<const float> x, float pad, F f) {
    Batch acc[2] = {Batch(0.0f), Batch(0.0f)};
    const std::size_t n = x.size();
    std::size_t j = 0;
    for (; j + 2 * kLanes <= n; j += 2 * kLanes) {
        acc[0] += f(Batch::load_unaligned(x.data() + j));
        acc[1] += f(Batch::load_unaligned(x.data() + j + kLanes));
    }
    for (; j + kLanes <= n; j += kLanes) acc[0] += f(Batch::load_unaligned(x.data() + j));
    if (j < n) acc[1] += f(load_tail(x.data() + j, n - j, pad));
    return sum_lanes(acc[0] + acc[1]);
}

// y = (x - shift) * scale * weight + bias, with the optional parts switched at compile time.
template <bool kWeight, bool kBias>
void scale_and_shift(std::span<const float> x, float shift, float scale, std::span<const float> weight,
                     std::span<const float> bias, std::span<float> y) {
    const std::size_t n = x.size();
    const Batch s(shift), c(scale);
    auto one = [&](Batch v, Batch w, Batch b) {
        v = (v - s) * c;
        if constexpr (kWeight) v *= w;
        if constexpr (kBias) v += b;
        return v;
    };
    auto at = [](std::span<const float> values, std::size_t j) {
        return values.empty() ? Batch(0.0f) : Batch::load_unaligned(values.data() + j);
    };
    auto tail_at = [](std::span<const float> values, std::size_t j, std::size_t count) {
        return values.empty() ? Batch(0.0f) : load_tail(values.data() + j, count, 0.0f);
    };
    std::size_t j = 0;
    for (; j + kLanes <= n; j += kLanes) {
        one(Batch::load_unaligned(x.data() + j), at(weight, j), at(bias, j)).store_unaligned(y.data() + j);
    }
    if (j < n) {
        const std::size_t count = n - j;
        store_tail(one(load_tail(x.data() + j, count, 0.0f), tail_at(weight, j, count), tail_at(bias, j, count)),
                   y.data() + j, count);
    }
}

void scale_and_shift(std::span<const float> x, float shift, float scale, std::span<const float> weight,
                     std::span<const float> bias, std::span<float> y) {
    if (weight.empty() && bias.empty()) scale_and_shift<false, false>(x, shift, scale, weight, bias, y);
    else if (bias.empty()) scale_and_shift<true, false>(x, shift, scale, weight, bias, y);
    else if (weight.empty()) scale_and_shift<false, true>(x, shift, scale, weight, bias, y);
    else scale_and_shift<true, true>(x, shift, scale, weight, bias, y);
}

}  // namespace

void rmsnorm(std::span<const float> x, std::span<const float> weight, float eps, std::span<float> y) noexcept {
    const float sum_squares = sum_of(x, 0.0f, [](Batch v) { return v * v; });
    const float mean_square = sum_squares / static_cast<float>(x.size());
    scale_and_shift(x, 0.0f, 1.0f / std::sqrt(mean_square + eps), weight, {}, y);
}

void layernorm(std::span<const float> x, std::span<const float> weight, std::span<const float> bias, float eps,
               std::span<float> y) noexcept {
    const auto n = static_cast<float>(x.size());
    // Relative to a pivot, then two passes, as in the scalar kernel. The tail pads with the
    // pivot (then the mean) so that its unused lanes contribute 0.
    const float pivot = x.empty() ? 0.0f : x[0];
    const Batch p(pivot);
    const float mean = pivot + sum_of(x, pivot, [&](Batch v) { return v - p; }) / n;
    const Batch m(mean);
    const float sum_squares = sum_of(x, mean, [&](Batch v) { return (v - m) * (v - m); });
    scale_and_shift(x, mean, 1.0f / std::sqrt(sum_squares / n + eps), weight, bias, y);
}

}  // namespace forge::kernels::simd
