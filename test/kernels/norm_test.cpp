// The scalar normalization kernels against double-precision math.
#include "kernels/norm.h"

#include "test/kernels/test_data.h"

namespace forge::kernels {
namespace {

using testing::close;
using testing::kLengths;
using testing::uniform;

std::vector<double> naive_rmsnorm(const std::vector<float>& x, const std::vector<float>& w, double eps) {
    double squares = 0;
    for (float v : x) squares += double(v) * v;
    const double r = 1 / std::sqrt(squares / static_cast<double>(x.size()) + eps);
    std::vector<double> y(x.size());
    for (std::size_t j = 0; j < x.size(); ++j) y[j] = x[j] * r * (w.empty() ? 1.0 : w[j]);
    return y;
}

std::vector<double> naive_layernorm(const std::vector<float>& x, const std::vector<float>& w,
                                    const std::vector<float>& b, double eps) {
    double mean = 0, var = 0;
    for (float v : x) mean += v;
    mean /= static_cast<double>(x.size());
    for (float v : x) var += (v - mean) * (v - mean);
    var /= static_cast<double>(x.size());
    std::vector<double> y(x.size());
    for (std::size_t j = 0; j < x.size(); ++j) {
        y[j] = (x[j] - mean) / std::sqrt(var + eps) * (w.empty() ? 1.0 : w[j]) + (b.empty() ? 0.0 : b[j]);
    }
    return y;
}

TEST(NormScalar, RmsnormMatchesDoublePrecision) {
    for (std::size_t n : kLengths) {
        if (n == 0) continue;
        const auto x = uniform(n, -3, 3, static_cast<std::uint32_t>(n));
        const auto w = uniform(n, 0.5f, 2, static_cast<std::uint32_t>(n) + 1);
        for (const auto& weight : {w, std::vector<float>{}}) {
            std::vector<float> y(n);
            scalar::rmsnorm(x, weight, 1e-6f, y);
            const auto want = naive_rmsnorm(x, weight, 1e-6);
            for (std::size_t j = 0; j < n; ++j) ASSERT_TRUE(close(y[j], want[j], 1e-6, 1e-6)) << n << " " << j;
        }
    }
}

TEST(NormScalar, LayernormMatchesDoublePrecision) {
    for (std::size_t n : kLengths) {
        if (n == 0) continue;
        // An offset mean: the two-pass variance must not cancel.
        const auto x = uniform(n, 97, 103, static_cast<std::uint32_t>(n));
        const auto w = uniform(n, 0.5f, 2, static_cast<std::uint32_t>(n) + 1);
        const auto b = uniform(n, -1, 1, static_cast<std::uint32_t>(n) + 2);
        for (bool with_affine : {true, false}) {
            const std::vector<float> weight = with_affine ? w : std::vector<float>{};
            const std::vector<float> bias = with_affine ? b : std::vector<float>{};
            std::vector<float> y(n);
            scalar::layernorm(x, weight, bias, 1e-5f, y);
            const auto want = naive_layernorm(x, weight, bias, 1e-5);
            // x carries ~100 * 6e-8 absolute rounding into the normalized ~unit values.
            for (std::size_t j = 0; j < n; ++j) ASSERT_TRUE(close(y[j], want[j], 1e-5, 1e-5)) << n << " " << j;
        }
    }
}

TEST(NormScalar, ConstantRowNormalizesToBias) {
    const std::vector<float> x(10, 4.0f), w(10, 3.0f), b(10, 0.5f);
    std::vector<float> y(10);
    scalar::layernorm(x, w, b, 1e-5f, y);
    for (float v : y) EXPECT_EQ(v, 0.5f);
}

}  // namespace
}  // namespace forge::kernels
