// Softmax and log-softmax of one row, with a scale and a masked tail.
//
// Only the first `visible` entries take part: y = softmax(scale * x[0, visible)), and the
// masked entries j >= visible get probability 0 (log-probability -inf). A causal attention
// mask is exactly such a tail, different for each query row; the front-end computes it. A
// row with nothing visible is all 0 (all -inf): no key contributes.
//
// y may be the same memory as x (in place).
#pragma once

#include <cstddef>
#include <span>

namespace forge::kernels {

namespace scalar {
void softmax(std::span<const float> x, float scale, std::size_t visible, std::span<float> y) noexcept;
void log_softmax(std::span<const float> x, float scale, std::size_t visible, std::span<float> y) noexcept;
}  // namespace scalar

namespace simd {
void softmax(std::span<const float> x, float scale, std::size_t visible, std::span<float> y) noexcept;
void log_softmax(std::span<const float> x, float scale, std::size_t visible, std::span<float> y) noexcept;
}  // namespace simd

}  // namespace forge::kernels
