// The two inner loops of attention over a KV cache, for f32 and f16 (half-precision) caches.
//
// A cache holds one row per position; a kv head's key or value is `dim` consecutive values of
// a row, and consecutive positions are `stride` elements apart, so one head of a cache laid
// out [position, kv_width] is read in place. The queries that share the kv head (a
// grouped-query attention group: n_q = q.size() / dim vectors of dim values, one after the
// other) are done together, so each cached row is loaded and widened once for all of them:
//   kv_dot_rows:        scores[i * n_keys + j] = sum_d q[i * dim + d] * rows[j * stride + d]
//   kv_accumulate_rows: out[i * dim + d] += sum_j weights[i * n_keys + j] * rows[j * stride + d]
// with n_keys = scores.size() / n_q (weights.size() / n_q). f16 values are widened exactly
// (kernels/half.h). rows must hold (n_keys - 1) * stride + dim elements.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace forge::kernels {

namespace scalar {
template <typename Element>  // float or std::uint16_t (f16)
void kv_dot_rows(std::span<const float> q, std::size_t dim, std::span<const Element> rows, std::size_t stride,
                 std::span<float> scores) noexcept;
template <typename Element>
void kv_accumulate_rows(std::span<const float> weights, std::size_t dim, std::span<const Element> rows,
                        std::size_t stride, std::span<float> out) noexcept;
}  // namespace scalar

namespace simd {
template <typename Element>  // float or std::uint16_t (f16)
void kv_dot_rows(std::span<const float> q, std::size_t dim, std::span<const Element> rows, std::size_t stride,
                 std::span<float> scores) noexcept;
template <typename Element>
void kv_accumulate_rows(std::span<const float> weights, std::size_t dim, std::span<const Element> rows,
                        std::size_t stride, std::span<float> out) noexcept;
}  // namespace simd

}  // namespace forge::kernels
