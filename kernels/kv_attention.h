// The two inner loops of attention over a KV cache, for f32 and f16 (half-precision) caches.
//
// A cache holds one row per position; a head's key or value is `q.size()` (or `out.size()`)
// consecutive values of a row, and consecutive positions are `stride` elements apart, so one
// head of a cache laid out [position, kv_width] is read in place:
//   kv_dot_rows:        scores[j] = sum_d q[d] * rows[j * stride + d]     for j < scores.size()
//   kv_accumulate_rows: out[d]   += sum_j weights[j] * rows[j * stride + d] for d < out.size()
// f16 values are widened exactly (kernels/half.h). rows must hold (count - 1) * stride + dim
// elements.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace forge::kernels {

namespace scalar {
template <typename Element>  // float or std::uint16_t (f16)
void kv_dot_rows(std::span<const float> q, std::span<const Element> rows, std::size_t stride,
                 std::span<float> scores) noexcept;
template <typename Element>
void kv_accumulate_rows(std::span<const float> weights, std::span<const Element> rows, std::size_t stride,
                        std::span<float> out) noexcept;
}  // namespace scalar

namespace simd {
template <typename Element>  // float or std::uint16_t (f16)
void kv_dot_rows(std::span<const float> q, std::span<const Element> rows, std::size_t stride,
                 std::span<float> scores) noexcept;
template <typename Element>
void kv_accumulate_rows(std::span<const float> weights, std::span<const Element> rows, std::size_t stride,
                        std::span<float> out) noexcept;
}  // namespace simd

}  // namespace forge::kernels
