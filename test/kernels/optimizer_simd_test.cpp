// Optimizer updates: simd against scalar (simd builds only). The formulas are the same; only
// the compiler's fused multiply-adds may differ, so a few ulps are allowed.
#include "kernels/optimizer.h"

#include "test/kernels/test_data.h"

namespace forge::kernels {
namespace {

using testing::close;
using testing::kLengths;
using testing::uniform;

void expect_close(const std::vector<float>& got, const std::vector<float>& want) {
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_TRUE(close(got[i], want[i], 1e-6, 1e-7)) << "i=" << i;
}

TEST(OptimizerSimd, SgdMatchesScalar) {
    for (std::size_t n : kLengths) {
        for (bool nesterov : {false, true}) {
            const SgdStep step{0.1f, 0.9f, 0.0f, 0.01f, nesterov, false};
            const auto grad = uniform(n, -1, 1, 1);
            auto p1 = uniform(n, -1, 1, 2), p2 = p1;
            auto b1 = uniform(n, -1, 1, 3), b2 = b1;
            scalar::sgd_update(step, p1, grad, b1);
            simd::sgd_update(step, p2, grad, b2);
            expect_close(p2, p1);
            expect_close(b2, b1);
        }
    }
}

TEST(OptimizerSimd, AdamMatchesScalar) {
    for (std::size_t n : kLengths) {
        for (bool decoupled : {false, true}) {
            const AdamStep step{1e-2f, 0.9f, 0.999f, 1e-8f, 0.1f, decoupled, 0.19f, 0.0447f};
            const auto grad = uniform(n, -1, 1, 4);
            auto p1 = uniform(n, -1, 1, 5), p2 = p1;
            auto m1 = uniform(n, -1, 1, 6), m2 = m1;
            auto v1 = uniform(n, 0, 1, 7), v2 = v1;
            scalar::adam_update(step, p1, grad, m1, v1);
            simd::adam_update(step, p2, grad, m2, v2);
            expect_close(p2, p1);
            expect_close(m2, m1);
            expect_close(v2, v1);
        }
    }
}

}  // namespace
}  // namespace forge::kernels
