// The scalar reduction kernels against double-precision math, on rows (last axis), columns
// (middle axis) and blocks of columns (stride > inner).
#include "kernels/reduce.h"

#include "test/kernels/test_data.h"

#include <limits>

namespace forge::kernels {
namespace {

using testing::close;
using testing::uniform;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

struct Expected {
    double sum = 0, max = -INFINITY, abs_sum = 0;
    std::int64_t argmax = 0;
};

Expected naive(const std::vector<float>& x, const ReduceLayout& l, std::int64_t o, std::int64_t i) {
    Expected e;
    for (std::int64_t k = 0; k < l.n; ++k) {
        const double v = x[static_cast<std::size_t>((o * l.n + k) * l.stride + i)];
        e.sum += v;
        e.abs_sum += std::fabs(v);
        if (v > e.max) e.max = v, e.argmax = k;
    }
    return e;
}

double naive_logsumexp(const std::vector<float>& x, const ReduceLayout& l, std::int64_t o, std::int64_t i) {
    const double m = naive(x, l, o, i).max;
    double total = 0;
    for (std::int64_t k = 0; k < l.n; ++k) total += std::exp(x[static_cast<std::size_t>((o * l.n + k) * l.stride + i)] - m);
    return m + std::log(total);
}

const ReduceLayout kLayouts[] = {
    {1, 1, 1, 1}, {3, 17, 1, 1}, {2, 1000, 1, 1},  // rows
    {2, 5, 7, 7}, {1, 33, 64, 64}, {4, 9, 3, 3},   // columns
    {2, 6, 5, 12},                                  // a block of 5 columns out of 12
};

TEST(ReduceScalar, MatchesDoublePrecision) {
    for (const ReduceLayout& l : kLayouts) {
        const auto x = uniform(static_cast<std::size_t>(l.outer * l.n * l.stride), -4, 4, static_cast<std::uint32_t>(l.n));
        const auto outputs = static_cast<std::size_t>(l.outer * l.stride);
        std::vector<float> sum(outputs), mean(outputs), max(outputs), lse(outputs);
        std::vector<std::int64_t> index(outputs);
        scalar::reduce(ReduceOp::Sum, x.data(), l, sum.data());
        scalar::reduce(ReduceOp::Mean, x.data(), l, mean.data());
        scalar::reduce(ReduceOp::Max, x.data(), l, max.data());
        scalar::reduce(ReduceOp::LogSumExp, x.data(), l, lse.data());
        scalar::argmax(x.data(), l, index.data());
        for (std::int64_t o = 0; o < l.outer; ++o) {
            for (std::int64_t i = 0; i < l.inner; ++i) {
                const auto at = static_cast<std::size_t>(o * l.stride + i);
                const Expected e = naive(x, l, o, i);
                // Rounding error of a float sum grows at most linearly with n.
                EXPECT_TRUE(close(sum[at], e.sum, 0, 1e-6 * static_cast<double>(l.n) * (1 + e.abs_sum / l.n)));
                EXPECT_TRUE(close(mean[at], e.sum / l.n, 0, 1e-6 * (1 + e.abs_sum / l.n)));
                EXPECT_EQ(max[at], e.max);
                EXPECT_EQ(index[at], e.argmax);
                EXPECT_TRUE(close(lse[at], naive_logsumexp(x, l, o, i), 1e-6, 1e-7 * static_cast<double>(l.n)));
            }
        }
    }
}

TEST(ReduceScalar, BlockLeavesOtherColumnsAlone) {
    const ReduceLayout l{1, 4, 2, 6};  // columns 0 and 1 of 6
    const auto x = uniform(24, -1, 1, 1);
    std::vector<float> y(6, 123.0f);
    scalar::reduce(ReduceOp::Sum, x.data(), l, y.data());
    for (std::size_t i = 2; i < 6; ++i) EXPECT_EQ(y[i], 123.0f);
}

TEST(ReduceScalar, ArgmaxLowestIndexWinsTies) {
    const std::vector<float> x = {1, 5, 2, 5, 5, 0};
    std::int64_t index = -1;
    scalar::argmax(x.data(), {1, 6, 1, 1}, &index);
    EXPECT_EQ(index, 1);
}

TEST(ReduceScalar, NaNAndInfinities) {
    const std::vector<float> with_nan = {1, kNaN, 3, kNaN};
    float y = 0;
    std::int64_t index = -1;
    scalar::reduce(ReduceOp::Max, with_nan.data(), {1, 4, 1, 1}, &y);
    EXPECT_TRUE(std::isnan(y));
    scalar::argmax(with_nan.data(), {1, 4, 1, 1}, &index);
    EXPECT_EQ(index, 1);  // the first NaN

    const std::vector<float> all_minus_inf = {-kInf, -kInf};
    scalar::reduce(ReduceOp::LogSumExp, all_minus_inf.data(), {1, 2, 1, 1}, &y);
    EXPECT_EQ(y, -kInf);
    const std::vector<float> plus_inf = {0, kInf};
    scalar::reduce(ReduceOp::LogSumExp, plus_inf.data(), {1, 2, 1, 1}, &y);
    EXPECT_EQ(y, kInf);
    const std::vector<float> huge = {1000, 1000};  // exp would overflow without the shift
    scalar::reduce(ReduceOp::LogSumExp, huge.data(), {1, 2, 1, 1}, &y);
    EXPECT_FLOAT_EQ(y, 1000 + std::log(2.0f));
}

}  // namespace
}  // namespace forge::kernels
