#include "kernels/gather.h"

#include "kernels/half.h"

namespace forge::kernels::scalar {
namespace {

float widen(float value) { return value; }
float widen(std::uint16_t half) { return kernels::f16_to_f32(half); }

template <typename Element, typename Index>
void gather(const GatherRows<Element, Index>& gather) {
    const std::int64_t dim = gather.dim;
    for (std::size_t i = 0; i < gather.ids.size(); ++i) {
        const Element* row = gather.table.data() + static_cast<std::int64_t>(gather.ids[i]) * dim;
        float* out = gather.out.data() + static_cast<std::int64_t>(i) * dim;
        for (std::int64_t d = 0; d < dim; ++d) out[d] = widen(row[d]);
    }
}

}  // namespace

void gather_rows(const GatherRows<float, std::int32_t>& g) noexcept { gather(g); }
void gather_rows(const GatherRows<float, std::int64_t>& g) noexcept { gather(g); }
void gather_rows(const GatherRows<std::uint16_t, std::int32_t>& g) noexcept { gather(g); }
void gather_rows(const GatherRows<std::uint16_t, std::int64_t>& g) noexcept { gather(g); }

}  // namespace forge::kernels::scalar
