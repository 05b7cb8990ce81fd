#include "kernels/scatter_add.h"

namespace forge::kernels::scalar {
namespace {

template <typename Index>
void scatter(const ScatterAddRows<Index>& s) {
    for (std::size_t i = 0; i < s.ids.size(); ++i) {
        const float* row = s.rows.data() + static_cast<std::int64_t>(i) * s.dim;
        float* target = s.table.data() + static_cast<std::int64_t>(s.ids[i]) * s.dim;
        for (std::int64_t c = s.column_begin; c < s.column_end; ++c) target[c] += row[c];
    }
}

}  // namespace

void scatter_add_rows(const ScatterAddRows<std::int32_t>& scatter_rows) noexcept { scatter(scatter_rows); }
void scatter_add_rows(const ScatterAddRows<std::int64_t>& scatter_rows) noexcept { scatter(scatter_rows); }

}  // namespace forge::kernels::scalar
