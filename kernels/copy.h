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

namespace scalar { void copy_strided(const StridedCopy& copy) noexcept; }
namespace simd { void copy_strided(const StridedCopy& copy) noexcept; }

}  // namespace forge::kernels
