#include "kernels/gather.h"

#include "kernels/simd/widen.h"

#include <cstring>

namespace forge::kernels::simd {
namespace {

// One row: an f32 row is a plain copy; an f16 row is widened a vector at a time.
void copy_row(const float* row, std::int64_t dim, float* out) {
    std::memcpy(out, row, static_cast<std::size_t>(dim) * sizeof(float));
}

void copy_row(const std::uint16_t* row, std::int64_t dim, float* out) {
    std::int64_t d = 0;
    for (; d + kFloatLanes <= dim; d += kFloatLanes) load_widened(row + d).store_unaligned(out + d);
    for (; d < dim; ++d) out[d] = widen(row[d]);
}

template <typename Element, typename Index>
void gather(const GatherRows<Element, Index>& gather) {
    const std::int64_t dim = gather.dim;
    for (std::size_t i = 0; i < gather.ids.size(); ++i) {
        copy_row(gather.table.data() + static_cast<std::int64_t>(gather.ids[i]) * dim, dim,
                 gather.out.data() + static_cast<std::int64_t>(i) * dim);
    }
}

}  // namespace

void gather_rows(const GatherRows<float, std::int32_t>& g) noexcept { gather(g); }
void gather_rows(const GatherRows<float, std::int64_t>& g) noexcept { gather(g); }
void gather_rows(const GatherRows<std::uint16_t, std::int32_t>& g) noexcept { gather(g); }
void gather_rows(const GatherRows<std::uint16_t, std::int64_t>& g) noexcept { gather(g); }

}  // namespace forge::kernels::simd
