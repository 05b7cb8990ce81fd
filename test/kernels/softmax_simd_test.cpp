// The simd softmax kernels against the scalar ones (simd builds only).
#include "kernels/softmax.h"

#include "test/kernels/test_data.h"

namespace forge::kernels {
namespace {

using testing::close;
using testing::kLengths;
using testing::uniform;

TEST(SoftmaxSimd, MatchesScalar) {
    for (std::size_t n : kLengths) {
        for (float scale : {1.0f, 0.0883883f, -1.5f}) {
            for (std::size_t visible : {n, n - n / 3, std::size_t{0}, std::size_t{1}, n + 5}) {
                const auto x = uniform(n, -8, 8, static_cast<std::uint32_t>(n * 7 + visible));
                std::vector<float> want(n), got(n);
                scalar::softmax(x, scale, visible, want);
                simd::softmax(x, scale, visible, got);
                float largest = 0;
                for (float v : x) largest = std::max(largest, std::fabs(scale * v));
                for (std::size_t j = 0; j < n; ++j) {
                    // exp's argument scale * x - max carries an absolute rounding error of about
                    // an ulp of its operands (the scalar build may also contract it into an FMA),
                    // which exp turns into that much relative error.
                    const double argument_error = 1.2e-7 * (std::fabs(scale * x[j]) + largest);
                    ASSERT_TRUE(close(got[j], want[j], 1e-6 + argument_error + 1e-8 * static_cast<double>(n), 1e-30))
                        << "softmax n=" << n << " visible=" << visible << " j=" << j;
                }
                scalar::log_softmax(x, scale, visible, want);
                simd::log_softmax(x, scale, visible, got);
                for (std::size_t j = 0; j < n; ++j) {
                    ASSERT_TRUE(close(got[j], want[j], 1e-6, 1e-6)) << "log_softmax n=" << n << " j=" << j;
                }
            }
        }
    }
}

TEST(SoftmaxSimd, InPlace) {
    auto x = uniform(1000, -5, 5, 2);
    std::vector<float> want(x.size());
    simd::softmax(x, 0.5f, 700, want);
    simd::softmax(x, 0.5f, 700, x);
    EXPECT_EQ(x, want);
}

}  // namespace
}  // namespace forge::kernels
