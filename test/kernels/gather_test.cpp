// gather_rows: every id, both table types, both id types, row widths around the vector width.
#include "kernels/gather.h"
#include "kernels/half.h"

#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <vector>

namespace forge::kernels {
namespace {

template <typename Element, typename Index>
void check_gather(std::int64_t rows, std::int64_t dim) {
    std::mt19937 rng(static_cast<std::uint32_t>(rows * 131 + dim));
    std::vector<Element> table(static_cast<std::size_t>(rows * dim));
    for (auto& v : table) {
        const float value = std::uniform_real_distribution<float>(-4.0f, 4.0f)(rng);
        if constexpr (std::is_same_v<Element, float>) v = value;
        else v = f32_to_f16(value);
    }
    std::vector<Index> ids(23);
    for (auto& id : ids) id = static_cast<Index>(rng() % static_cast<std::uint32_t>(rows));
    std::vector<float> scalar_out(ids.size() * static_cast<std::size_t>(dim), -1.0f);
    scalar::gather_rows(GatherRows<Element, Index>{table, dim, ids, scalar_out});
    for (std::size_t i = 0; i < ids.size(); ++i) {
        for (std::int64_t d = 0; d < dim; ++d) {
            const Element stored = table[static_cast<std::size_t>(static_cast<std::int64_t>(ids[i]) * dim + d)];
            float want;
            if constexpr (std::is_same_v<Element, float>) want = stored;
            else want = f16_to_f32(stored);
            ASSERT_EQ(scalar_out[i * static_cast<std::size_t>(dim) + static_cast<std::size_t>(d)], want);
        }
    }
#if defined(FORGE_BACKEND_SIMD)
    std::vector<float> simd_out(scalar_out.size(), -2.0f);
    simd::gather_rows(GatherRows<Element, Index>{table, dim, ids, simd_out});
    for (std::size_t i = 0; i < simd_out.size(); ++i) {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(simd_out[i]), std::bit_cast<std::uint32_t>(scalar_out[i])) << i;
    }
#endif
}

TEST(GatherKernel, EveryTableAndIdType) {
    for (std::int64_t dim : {1, 7, 8, 15, 16, 17, 33, 100}) {
        check_gather<float, std::int32_t>(9, dim);
        check_gather<float, std::int64_t>(9, dim);
        check_gather<std::uint16_t, std::int32_t>(9, dim);
        check_gather<std::uint16_t, std::int64_t>(9, dim);
    }
}

}  // namespace
}  // namespace forge::kernels
