// Scatter-add of rows: simd against scalar, bitwise (both do one add per element in id order).
#include "kernels/scatter_add.h"

#include "test/kernels/test_data.h"

namespace forge::kernels {
namespace {

TEST(ScatterAddSimd, MatchesScalarBitwise) {
    for (std::size_t dim : testing::kLengths) {
        if (dim == 0) continue;
        const std::vector<std::int32_t> ids = {1, 0, 1, 1, 2};
        const auto rows = testing::uniform(ids.size() * dim, -1, 1, static_cast<std::uint32_t>(dim));
        std::vector<float> want(3 * dim, 0.5f), got(3 * dim, 0.5f);
        const auto d = static_cast<std::int64_t>(dim);
        const std::int64_t begin = d / 3;
        scalar::scatter_add_rows(ScatterAddRows<std::int32_t>{rows, d, ids, want, begin, d});
        simd::scatter_add_rows(ScatterAddRows<std::int32_t>{rows, d, ids, got, begin, d});
        ASSERT_EQ(got, want) << "dim " << dim;
    }
}

}  // namespace
}  // namespace forge::kernels
