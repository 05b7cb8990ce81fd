// Scatter-add of rows (the backward of an embedding gather): table[ids[i], c] += rows[i, c]
// for c in [column_begin, column_end).
//
// Ids repeat, so rows cannot be split between threads without races; columns can. The
// front-end hands each thread a column range, and every element still sums its rows in id
// order: the result is bitwise identical for any thread count. The front-end has checked
// the ids.
#pragma once

#include <cstdint>
#include <span>

namespace forge::kernels {

template <typename Index>
struct ScatterAddRows {
    std::span<const float> rows;  // ids.size() * dim
    std::int64_t dim;
    std::span<const Index> ids;
    std::span<float> table;  // (max id + 1) * dim or more
    std::int64_t column_begin;
    std::int64_t column_end;
};

namespace scalar {
void scatter_add_rows(const ScatterAddRows<std::int32_t>& scatter) noexcept;
void scatter_add_rows(const ScatterAddRows<std::int64_t>& scatter) noexcept;
}  // namespace scalar

namespace simd {
void scatter_add_rows(const ScatterAddRows<std::int32_t>& scatter) noexcept;
void scatter_add_rows(const ScatterAddRows<std::int64_t>& scatter) noexcept;
}  // namespace simd

}  // namespace forge::kernels
