#include "kernels/scatter_add.h"

#include "kernels/simd/vector_math.h"

namespace forge::kernels::simd {
namespace {

template <typename Index>
void scatter(const ScatterAddRows<Index>& s) {
    const auto width = static_cast<std::size_t>(s.column_end - s.column_begin);
    for (std::size_t i = 0; i < s.ids.size(); ++i) {
        const float* row = s.rows.data() + static_cast<std::int64_t>(i) * s.dim + s.column_begin;
        float* target = s.table.data() + static_cast<std::int64_t>(s.ids[i]) * s.dim + s.column_begin;
        std::size_t c = 0;
        for (; c + kLanes <= width; c += kLanes) {
            (Batch::load_unaligned(target + c) + Batch::load_unaligned(row + c)).store_unaligned(target + c);
        }
        for (; c < width; ++c) target[c] += row[c];  // one add per element: same as the batch lanes
    }
}

}  // namespace

void scatter_add_rows(const ScatterAddRows<std::int32_t>& scatter_rows) noexcept { scatter(scatter_rows); }
void scatter_add_rows(const ScatterAddRows<std::int64_t>& scatter_rows) noexcept { scatter(scatter_rows); }

}  // namespace forge::kernels::simd
