#include "kernels/copy.h"

#include <array>
#include <cstring>

namespace forge::kernels::scalar {

void copy_strided(const StridedCopy& copy) noexcept {
    const std::size_t rank = copy.shape.size();
    std::int64_t total = 1;
    for (auto size : copy.shape) total *= size;
    if (total == 0) return;

    // Walk the source in row-major order with an odometer over the axes.
    std::array<std::int64_t, 16> index{};
    std::int64_t source_offset = 0;
    std::byte* out = copy.dst;
    for (std::int64_t n = 0; n < total; ++n) {
        std::memcpy(out, copy.src + source_offset * static_cast<std::int64_t>(copy.element_bytes),
                    copy.element_bytes);
        out += copy.element_bytes;
        for (std::size_t axis = rank; axis-- > 0;) {
            source_offset += copy.strides[axis];
            if (++index[axis] < copy.shape[axis]) break;
            source_offset -= copy.strides[axis] * copy.shape[axis];
            index[axis] = 0;
        }
    }
}

void copy_rows(const RowCopy& copy) noexcept {
    for (std::int64_t row = 0; row < copy.rows; ++row) {
        std::memcpy(copy.dst + row * copy.dst_stride, copy.src + row * copy.src_stride, copy.row_bytes);
    }
}

}  // namespace forge::kernels::scalar
