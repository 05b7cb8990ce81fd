// The scalar softmax kernels against double-precision math.
#include "kernels/softmax.h"

#include "test/kernels/test_data.h"

#include <limits>

namespace forge::kernels {
namespace {

using testing::close;
using testing::kLengths;
using testing::uniform;

std::vector<double> naive_log_softmax(const std::vector<float>& x, double scale, std::size_t visible) {
    double m = -INFINITY;
    for (std::size_t j = 0; j < visible; ++j) m = std::max(m, scale * x[j]);
    double total = 0;
    for (std::size_t j = 0; j < visible; ++j) total += std::exp(scale * x[j] - m);
    std::vector<double> y(x.size(), -INFINITY);
    for (std::size_t j = 0; j < visible; ++j) y[j] = scale * x[j] - m - std::log(total);
    return y;
}

TEST(SoftmaxScalar, MatchesDoublePrecision) {
    for (std::size_t n : kLengths) {
        for (float scale : {1.0f, 0.125f, -2.0f}) {
            for (std::size_t visible : {n, n / 2, std::size_t{1}}) {
                if (visible > n) continue;
                const auto x = uniform(n, -6, 6, static_cast<std::uint32_t>(n + visible));
                const auto want = naive_log_softmax(x, scale, visible);
                std::vector<float> p(n), logp(n);
                scalar::softmax(x, scale, visible, p);
                scalar::log_softmax(x, scale, visible, logp);
                for (std::size_t j = 0; j < n; ++j) {
                    const double tol = 1e-6 + 1e-7 * static_cast<double>(visible);
                    ASSERT_TRUE(close(p[j], std::exp(want[j]), tol)) << "n=" << n << " j=" << j;
                    ASSERT_TRUE(close(logp[j], want[j], 1e-6, tol)) << "n=" << n << " j=" << j;
                }
            }
        }
    }
}

TEST(SoftmaxScalar, MaskedAndEmptyRows) {
    const std::vector<float> x = {1, 2, 3, 4};
    std::vector<float> p(4), logp(4);
    scalar::softmax(x, 1, 2, p);
    scalar::log_softmax(x, 1, 2, logp);
    EXPECT_FLOAT_EQ(p[0] + p[1], 1.0f);
    EXPECT_EQ(p[2], 0.0f);
    EXPECT_EQ(logp[3], -std::numeric_limits<float>::infinity());
    scalar::softmax(x, 1, 0, p);
    for (float v : p) EXPECT_EQ(v, 0.0f);
}

TEST(SoftmaxScalar, LargeScoresDoNotOverflow) {
    const std::vector<float> x = {1000, 1000, -1000};
    std::vector<float> p(3);
    scalar::softmax(x, 1, 3, p);
    EXPECT_FLOAT_EQ(p[0], 0.5f);
    EXPECT_EQ(p[2], 0.0f);
}

}  // namespace
}  // namespace forge::kernels
