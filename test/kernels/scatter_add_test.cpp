// Scatter-add of rows: the scalar spec against a plain double sum.
#include "kernels/scatter_add.h"

#include "test/kernels/test_data.h"

namespace forge::kernels {
namespace {

TEST(ScatterAdd, ScalarSumsRepeatedIds) {
    const std::int64_t dim = 5;
    const std::vector<std::int64_t> ids = {2, 0, 2, 3, 2};
    const auto rows = testing::uniform(ids.size() * dim, -1, 1, 3);
    std::vector<float> table(4 * dim, 1.0f);
    scalar::scatter_add_rows(ScatterAddRows<std::int64_t>{rows, dim, ids, table, 0, dim});
    for (std::int64_t r = 0; r < 4; ++r) {
        for (std::int64_t c = 0; c < dim; ++c) {
            double want = 1.0;
            for (std::size_t i = 0; i < ids.size(); ++i) {
                if (ids[i] == r) want += rows[i * dim + c];
            }
            EXPECT_NEAR(table[r * dim + c], want, 1e-6);
        }
    }
}

}  // namespace
}  // namespace forge::kernels
