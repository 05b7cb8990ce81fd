#include "kernels/copy.h"

#include <array>
#include <cstring>

namespace forge::kernels::simd {

void copy_strided(const StridedCopy& copy) noexcept {
    const std::size_t rank = copy.shape.size();
    std::int64_t total = 1;
    for (auto size : copy.shape) total *= size;
    if (total == 0) return;
    if (rank == 0) {
        std::memcpy(copy.dst, copy.src, copy.element_bytes);
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
