// The simd binary kernels against the scalar ones, bit for bit (simd builds only): each
// result is one correctly rounded operation in both.
#include "kernels/binary.h"

#include "test/kernels/test_data.h"

#include <bit>
#include <limits>

namespace forge::kernels {
namespace {

using testing::kLengths;
using testing::uniform;

const BinaryOp kAll[] = {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul,
                         BinaryOp::Div, BinaryOp::Maximum, BinaryOp::Minimum};

std::vector<float> with_specials(std::vector<float> x) {
    const float specials[] = {0.0f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                              -std::numeric_limits<float>::infinity()};
    for (std::size_t i = 0; i < x.size(); i += 7) x[i] = specials[(i / 7) % 4];
    return x;
}

void expect_same(std::span<const float> got, std::span<const float> want, const char* what, std::size_t n) {
    for (std::size_t i = 0; i < want.size(); ++i) {
        if (std::isnan(want[i])) ASSERT_TRUE(std::isnan(got[i])) << what << " n=" << n << " i=" << i;
        else ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(want[i]))
                 << what << " n=" << n << " i=" << i << ": " << got[i] << " vs " << want[i];
    }
}

TEST(BinarySimd, MatchesScalarBitForBit) {
    for (BinaryOp op : kAll) {
        for (std::size_t n : kLengths) {
            const auto a = with_specials(uniform(n, -10, 10, static_cast<std::uint32_t>(n)));
            const auto b = uniform(n, -10, 10, static_cast<std::uint32_t>(n) + 1);
            std::vector<float> want(n), got(n);
            scalar::binary(op, a, b, want);
            simd::binary(op, a, b, got);
            expect_same(got, want, "rows", n);

            const float s = -1.75f;
            scalar::binary(op, a, std::span(&s, 1), want);
            simd::binary(op, a, std::span(&s, 1), got);
            expect_same(got, want, "b broadcast", n);
            scalar::binary(op, std::span(&s, 1), b, want);
            simd::binary(op, std::span(&s, 1), b, got);
            expect_same(got, want, "a broadcast", n);
        }
    }
}

TEST(BinarySimd, InPlace) {
    auto a = uniform(1001, -3, 3, 4);
    const auto b = uniform(1001, -3, 3, 5);
    std::vector<float> want(a.size());
    scalar::binary(BinaryOp::Mul, a, b, want);
    simd::binary(BinaryOp::Mul, a, b, a);
    EXPECT_EQ(a, want);
}

}  // namespace
}  // namespace forge::kernels
