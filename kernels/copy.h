// Strided copy: gather an N-d strided view into a contiguous destination. This is how
// contiguous(), transposes and permutes materialize their data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace forge::kernels {

// `shape` and `strides` (in elements) describe the source view, `element_bytes` its element
// size; `dst` receives shape.product() elements in row-major order.
struct StridedCopy {
    const std::byte* src;
    std::span<const std::int64_t> shape;
    std::span<const std::int64_t> strides;
    std::size_t element_bytes;
    std::byte* dst;
};

// A 2-D block of bytes: `rows` rows of `row_bytes` each, the rows `src_stride` and
// `dst_stride` bytes apart. Concatenation writes each input into its slice of the output
// this way.
struct RowCopy {
    const std::byte* src;
    std::int64_t src_stride;
    std::byte* dst;
    std::int64_t dst_stride;
    std::int64_t rows;
    std::size_t row_bytes;
};

namespace scalar {
void copy_strided(const StridedCopy& copy) noexcept;
void copy_rows(const RowCopy& copy) noexcept;
}  // namespace scalar

namespace simd {
void copy_strided(const StridedCopy& copy) noexcept;
void copy_rows(const RowCopy& copy) noexcept;
}  // namespace simd

}  // namespace forge::kernels
