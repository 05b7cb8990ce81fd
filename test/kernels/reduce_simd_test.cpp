// The simd reduction kernels against the scalar ones (simd builds only).
#include "kernels/reduce.h"

#include "test/kernels/test_data.h"

#include <limits>

namespace forge::kernels {
namespace {

using testing::close;
using testing::kLengths;
using testing::uniform;

const ReduceOp kAll[] = {ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max, ReduceOp::LogSumExp};

// Sums are reassociated across lanes on rows: allow the float bound ~1e-6 * n * mean|x|.
double tolerance(ReduceOp op, std::int64_t n) {
    switch (op) {
        case ReduceOp::Sum: return 1e-6 * static_cast<double>(std::max<std::int64_t>(n, 1)) * 4;
        case ReduceOp::Mean: return 1e-6 * 4;
        case ReduceOp::Max: return 0;
        case ReduceOp::LogSumExp: return 1e-6 + 1e-7 * static_cast<double>(n);
    }
    return 0;
}

void compare(const ReduceLayout& l, std::uint32_t seed, bool with_ties) {
    auto x = uniform(static_cast<std::size_t>(l.outer * l.n * l.stride), -4, 4, seed);
    if (with_ties) for (auto& v : x) v = std::round(v);  // few distinct values: many ties
    const auto outputs = static_cast<std::size_t>(l.outer * l.stride);
    for (ReduceOp op : kAll) {
        std::vector<float> want(outputs, 7.0f), got(outputs, 7.0f);
        scalar::reduce(op, x.data(), l, want.data());
        simd::reduce(op, x.data(), l, got.data());
        for (std::size_t i = 0; i < outputs; ++i) {
            ASSERT_TRUE(close(got[i], want[i], 1e-6, tolerance(op, l.n)))
                << "op " << static_cast<int>(op) << " outer=" << l.outer << " n=" << l.n << " inner=" << l.inner
                << " stride=" << l.stride << " at " << i;
        }
    }
    std::vector<std::int64_t> want(outputs, -1), got(outputs, -1);
    scalar::argmax(x.data(), l, want.data());
    simd::argmax(x.data(), l, got.data());
    ASSERT_EQ(got, want) << "argmax outer=" << l.outer << " n=" << l.n << " inner=" << l.inner;
}

TEST(ReduceSimd, RowsMatchScalar) {
    for (std::size_t n : kLengths) {
        compare({3, static_cast<std::int64_t>(n), 1, 1}, static_cast<std::uint32_t>(n), false);
        compare({2, static_cast<std::int64_t>(n), 1, 1}, static_cast<std::uint32_t>(n), true);
    }
}

TEST(ReduceSimd, ColumnsMatchScalar) {
    for (std::size_t inner : kLengths) {
        if (inner == 0 || inner > 300) continue;
        const auto width = static_cast<std::int64_t>(inner);
        compare({2, 13, width, width}, static_cast<std::uint32_t>(inner), false);
        compare({1, 40, width, width}, static_cast<std::uint32_t>(inner), true);
        compare({2, 5, width, width + 19}, static_cast<std::uint32_t>(inner), false);  // a block
    }
}

TEST(ReduceSimd, ColumnSumsAreBitwiseScalar) {
    // Along a middle axis each column is summed in plain k order in both kernels.
    const ReduceLayout l{2, 300, 37, 37};
    const auto x = uniform(static_cast<std::size_t>(2 * 300 * 37), -1, 1, 3);
    std::vector<float> want(74), got(74);
    scalar::reduce(ReduceOp::Sum, x.data(), l, want.data());
    simd::reduce(ReduceOp::Sum, x.data(), l, got.data());
    EXPECT_EQ(got, want);
}

TEST(ReduceSimd, SpecialValuesMatchScalar) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    for (std::int64_t n : {1, 5, 16, 40}) {
        for (float special : {nan, inf, -inf}) {
            for (std::int64_t at : {std::int64_t{0}, n / 2, n - 1}) {
                std::vector<float> row = uniform(static_cast<std::size_t>(n), -1, 1, 9);
                row[static_cast<std::size_t>(at)] = special;
                if (special == -inf) std::fill(row.begin(), row.end(), -inf);  // all -inf
                // Rows, and the same values as one column of a [n, 3] block.
                std::vector<float> columns(static_cast<std::size_t>(n * 3), 0.0f);
                for (std::int64_t k = 0; k < n; ++k) columns[static_cast<std::size_t>(k * 3)] = row[static_cast<std::size_t>(k)];
                for (const auto& [data, layout] : {std::pair{&row, ReduceLayout{1, n, 1, 1}},
                                                   std::pair{&columns, ReduceLayout{1, n, 3, 3}}}) {
                    for (ReduceOp op : kAll) {
                        float want[3] = {}, got[3] = {};
                        scalar::reduce(op, data->data(), layout, want);
                        simd::reduce(op, data->data(), layout, got);
                        ASSERT_TRUE(close(got[0], want[0], 1e-6, 1e-6)) << "op " << static_cast<int>(op) << " n=" << n;
                    }
                    std::int64_t want[3] = {}, got[3] = {};
                    scalar::argmax(data->data(), layout, want);
                    simd::argmax(data->data(), layout, got);
                    ASSERT_EQ(got[0], want[0]) << "argmax n=" << n << " special " << special;
                }
            }
        }
    }
}

}  // namespace
}  // namespace forge::kernels
