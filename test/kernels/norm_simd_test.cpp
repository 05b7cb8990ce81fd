// The simd normalization kernels against the scalar ones (simd builds only).
#include "kernels/norm.h"

#include "test/kernels/test_data.h"

namespace forge::kernels {
namespace {

using testing::close;
using testing::kLengths;
using testing::uniform;

TEST(NormSimd, MatchesScalar) {
    for (std::size_t n : kLengths) {
        if (n == 0) continue;
        const auto x = uniform(n, -3, 3, static_cast<std::uint32_t>(n)), w = uniform(n, 0.5f, 2, 1),
                   b = uniform(n, -1, 1, 2);
        const std::vector<float> none;
        for (const auto& [weight, bias] : {std::pair{&w, &b}, std::pair{&none, &none}, std::pair{&w, &none},
                                           std::pair{&none, &b}}) {
            std::vector<float> want(n), got(n);
            // The row statistics are float sums (the scalar one sequential, the simd one across
            // lanes), whose rounding grows with n and shifts (mean) or scales (rsqrt) every output.
            const double tol = 1e-6 * (1 + static_cast<double>(n) / 256);
            scalar::rmsnorm(x, *weight, 1e-6f, want);
            simd::rmsnorm(x, *weight, 1e-6f, got);
            for (std::size_t j = 0; j < n; ++j) ASSERT_TRUE(close(got[j], want[j], tol, tol)) << "rms " << n;
            scalar::layernorm(x, *weight, *bias, 1e-5f, want);
            simd::layernorm(x, *weight, *bias, 1e-5f, got);
            for (std::size_t j = 0; j < n; ++j) ASSERT_TRUE(close(got[j], want[j], tol, tol)) << "layer " << n;
        }
    }
}

TEST(NormSimd, InPlace) {
    auto x = uniform(333, -2, 2, 3);
    std::vector<float> want(x.size());
    simd::rmsnorm(x, {}, 1e-6f, want);
    simd::rmsnorm(x, {}, 1e-6f, x);
    EXPECT_EQ(x, want);
}

}  // namespace
}  // namespace forge::kernels
