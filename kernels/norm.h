// Normalization of one row (the last axis of a tensor).
//
//   rmsnorm:   y = x / sqrt(mean(x^2) + eps) * weight
//   layernorm: y = (x - mean(x)) / sqrt(var(x) + eps) * weight + bias   (biased variance)
//
// weight and bias are optional: an empty span means 1 (weight) or 0 (bias); otherwise they
// have x.size() elements. y may be the same memory as x (in place).
#pragma once

#include <span>

namespace forge::kernels {

namespace scalar {
void rmsnorm(std::span<const float> x, std::span<const float> weight, float eps, std::span<float> y) noexcept;
void layernorm(std::span<const float> x, std::span<const float> weight, std::span<const float> bias, float eps,
               std::span<float> y) noexcept;
}  // namespace scalar

namespace simd {
void rmsnorm(std::span<const float> x, std::span<const float> weight, float eps, std::span<float> y) noexcept;
void layernorm(std::span<const float> x, std::span<const float> weight, std::span<const float> bias, float eps,
               std::span<float> y) noexcept;
}  // namespace simd

}  // namespace forge::kernels
