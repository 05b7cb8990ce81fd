// The scalar binary kernels against double-precision math, with and without broadcasting.
#include "kernels/binary.h"

#include "test/kernels/test_data.h"

#include <limits>

namespace forge::kernels {
namespace {

using testing::kLengths;
using testing::uniform;

const BinaryOp kAll[] = {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul,
                         BinaryOp::Div, BinaryOp::Maximum, BinaryOp::Minimum};

double apply(BinaryOp op, double a, double b) {
    switch (op) {
        case BinaryOp::Add: return a + b;
        case BinaryOp::Sub: return a - b;
        case BinaryOp::Mul: return a * b;
        case BinaryOp::Div: return a / b;
        case BinaryOp::Maximum: return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
        case BinaryOp::Minimum: return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
    }
    return 0;
}

// One basic float operation is correctly rounded: the double result rounded to float.
void expect_exact(float got, double want, const char* what) {
    const auto rounded = static_cast<float>(want);
    if (std::isnan(rounded)) ASSERT_TRUE(std::isnan(got)) << what;
    else ASSERT_EQ(got, rounded) << what;
}

TEST(BinaryScalar, RowsAreCorrectlyRounded) {
    for (BinaryOp op : kAll) {
        for (std::size_t n : kLengths) {
            const auto a = uniform(n, -10, 10, static_cast<std::uint32_t>(n));
            const auto b = uniform(n, 0.5f, 10, static_cast<std::uint32_t>(n) + 1);
            std::vector<float> y(n);
            scalar::binary(op, a, b, y);
            for (std::size_t i = 0; i < n; ++i) expect_exact(y[i], apply(op, a[i], b[i]), "row");
        }
    }
}

TEST(BinaryScalar, BroadcastsASizeOneOperand) {
    for (BinaryOp op : kAll) {
        const auto a = uniform(37, -10, 10, 3);
        const float b = 2.5f;
        std::vector<float> y(a.size());
        scalar::binary(op, a, std::span(&b, 1), y);
        for (std::size_t i = 0; i < a.size(); ++i) expect_exact(y[i], apply(op, a[i], b), "b scalar");
        scalar::binary(op, std::span(&b, 1), a, y);
        for (std::size_t i = 0; i < a.size(); ++i) expect_exact(y[i], apply(op, b, a[i]), "a scalar");
    }
}

TEST(BinaryScalar, MaximumAndMinimumPropagateNaN) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> a = {nan, 1.0f, nan};
    const std::vector<float> b = {1.0f, nan, nan};
    std::vector<float> y(3);
    for (BinaryOp op : {BinaryOp::Maximum, BinaryOp::Minimum}) {
        scalar::binary(op, a, b, y);
        for (float v : y) EXPECT_TRUE(std::isnan(v));
    }
}

}  // namespace
}  // namespace forge::kernels
