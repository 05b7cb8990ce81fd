#include "kernels/copy.h"

#include "kernels/simd/transpose.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace forge::kernels::simd {
namespace {

// dst[i*cols + j] = src[i + j*column_stride] for a plane of 4-byte elements whose source runs
// contiguously down the columns: a transpose. Walking it row by row would touch a new cache
// line (and often a new page) per element; 16 x 16 register tiles read and write whole lines,
// and grouping the tiles into 64 x 64 blocks keeps each block's 64 source and 64 destination
// rows (pages, for large planes) in the TLB and cache while it is worked on.
void transpose_plane(const std::uint32_t* src, std::int64_t column_stride, std::int64_t rows, std::int64_t cols,
                     std::uint32_t* dst) {
    constexpr std::int64_t kTile = 16;
    constexpr std::int64_t kBlock = 64;
    for (std::int64_t bi = 0; bi < rows; bi += kBlock) {
        for (std::int64_t bj = 0; bj < cols; bj += kBlock) {
            for (std::int64_t j0 = bj; j0 < std::min(cols, bj + kBlock); j0 += kTile) {
                for (std::int64_t i0 = bi; i0 < std::min(rows, bi + kBlock); i0 += kTile) {
                    const std::int64_t height = std::min(kTile, rows - i0), width = std::min(kTile, cols - j0);
#if defined(__AVX512F__)
                    if (height == kTile && width == kTile) {
                        __m512 tile[kTile];
                        for (std::int64_t j = 0; j < kTile; ++j) {
                            tile[j] = _mm512_loadu_ps(src + i0 + (j0 + j) * column_stride);
                        }
                        transpose16(tile);
                        for (std::int64_t i = 0; i < kTile; ++i) _mm512_storeu_ps(dst + (i0 + i) * cols + j0, tile[i]);
                        continue;
                    }
#endif
                    for (std::int64_t i = 0; i < height; ++i) {
                        for (std::int64_t j = 0; j < width; ++j) {
                            dst[(i0 + i) * cols + j0 + j] = src[i0 + i + (j0 + j) * column_stride];
                        }
                    }
                }
            }
        }
    }
}

// The last two axes form a transposed plane (the second-to-last has stride 1): copy plane by
// plane, walking the outer axes with an odometer.
void copy_transposed_planes(const StridedCopy& copy) {
    const std::size_t rank = copy.shape.size();
    const std::int64_t rows = copy.shape[rank - 2], cols = copy.shape[rank - 1];
    std::int64_t planes = 1;
    for (std::size_t axis = 0; axis + 2 < rank; ++axis) planes *= copy.shape[axis];
    std::array<std::int64_t, 16> index{};
    std::int64_t offset = 0;
    const auto* src = reinterpret_cast<const std::uint32_t*>(copy.src);
    auto* dst = reinterpret_cast<std::uint32_t*>(copy.dst);
    for (std::int64_t plane = 0; plane < planes; ++plane) {
        transpose_plane(src + offset, copy.strides[rank - 1], rows, cols, dst + plane * rows * cols);
        for (std::size_t axis = rank - 2; axis-- > 0;) {
            offset += copy.strides[axis];
            if (++index[axis] < copy.shape[axis]) break;
            offset -= copy.strides[axis] * copy.shape[axis];
            index[axis] = 0;
        }
    }
}

}  // namespace

void copy_strided(const StridedCopy& copy) noexcept {
    const std::size_t rank = copy.shape.size();
    std::int64_t total = 1;
    for (auto size : copy.shape) total *= size;
    if (total == 0) return;
    if (rank == 0) {
        std::memcpy(copy.dst, copy.src, copy.element_bytes);
        return;
    }

    if (rank >= 2 && copy.element_bytes == 4 && copy.strides[rank - 2] == 1 && copy.strides[rank - 1] != 1 &&
        copy.shape[rank - 2] > 1) {
        copy_transposed_planes(copy);
        return;
    }

    // Copy whole innermost rows at once where they are contiguous in the source (memcpy is
    // vectorized); otherwise gather element by element along the row.
    const std::size_t inner = rank - 1;
    const std::int64_t row_length = copy.shape[inner];
    const std::int64_t inner_stride = copy.strides[inner];
    const auto element_bytes = static_cast<std::int64_t>(copy.element_bytes);
    const std::int64_t rows = total / row_length;

    std::array<std::int64_t, 16> index{};
    std::int64_t row_offset = 0;
    std::byte* out = copy.dst;
    for (std::int64_t row = 0; row < rows; ++row) {
        const std::byte* in = copy.src + row_offset * element_bytes;
        if (inner_stride == 1) {
            std::memcpy(out, in, static_cast<std::size_t>(row_length * element_bytes));
        } else if (element_bytes == 4) {
            auto* dst32 = reinterpret_cast<std::uint32_t*>(out);
            for (std::int64_t i = 0; i < row_length; ++i) {
                std::memcpy(dst32 + i, in + i * inner_stride * 4, 4);
            }
        } else {
            for (std::int64_t i = 0; i < row_length; ++i) {
                std::memcpy(out + i * element_bytes, in + i * inner_stride * element_bytes,
                            copy.element_bytes);
            }
        }
        out += row_length * element_bytes;
        for (std::size_t axis = inner; axis-- > 0;) {
            row_offset += copy.strides[axis];
            if (++index[axis] < copy.shape[axis]) break;
            row_offset -= copy.strides[axis] * copy.shape[axis];
            index[axis] = 0;
        }
    }
}

void copy_rows(const RowCopy& copy) noexcept {
    // memcpy is already vectorized (and uses rep movsb for long rows where that is faster).
    for (std::int64_t row = 0; row < copy.rows; ++row) {
        std::memcpy(copy.dst + row * copy.dst_stride, copy.src + row * copy.src_stride, copy.row_bytes);
    }
}

}  // namespace forge::kernels::simd
