// matmul_bf16 (kernels/matmul.h): the scalar definition against double-precision sums of the
// bf16-rounded operands, its rounding and order on hand-made cases; the simd kernel against
// the scalar one bit for bit (simd builds), over sizes around the micro-tiles, the 256-deep
// panels and the cache blocks, with every layout.
#include "kernels/backend.h"
#include "kernels/half.h"
#include "kernels/matmul.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <string_view>
#include <vector>

namespace forge::kernels {
namespace {

// Values spread over 2^-10 .. 2^10 (scale 1), or scaled down near the f32 subnormals.
std::vector<float> random_values(std::size_t n, std::uint32_t seed, float scale = 1.0f) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> exponent(-10, 10);
    std::vector<float> values(n);
    for (auto& v : values) v = scale * std::ldexp(normal(rng), exponent(rng));
    return values;
}

MatrixView<float> view(const std::vector<float>& data, std::int64_t rows, std::int64_t cols, bool transposed) {
    return transposed ? MatrixView<float>{data.data(), 1, rows} : MatrixView<float>{data.data(), cols, 1};
}

float at(MatrixView<float> v, std::int64_t r, std::int64_t c) { return v.data[r * v.row_stride + c * v.col_stride]; }

double rounded(float value) { return bf16_to_f32(f32_to_bf16_flushed(value)); }

template <typename Kernel>
std::vector<float> run(Kernel kernel, std::int64_t m, std::int64_t n, std::int64_t k, MatrixView<float> a,
                       MatrixView<float> b, std::size_t scratch_floats) {
    std::vector<float> scratch(scratch_floats + 1), c(static_cast<std::size_t>(m * n), -7.0f);
    kernel(MatmulF32{m, n, k, a, b, {c.data(), n}}, std::span<float>(scratch));
    return c;
}

std::vector<float> scalar_product(std::int64_t m, std::int64_t n, std::int64_t k, MatrixView<float> a, MatrixView<float> b) {
    return run([](const MatmulF32& blk, std::span<float> s) { scalar::matmul_bf16(blk, s); }, m, n, k, a, b,
               scalar::matmul_scratch_floats(m, n, k));
}

// Each of the definition's k roundings is at most 2^-24 of a partial sum, itself at most the
// sum of |products| (S): |c - exact| <= k 2^-24 S, the exact sum taken over the rounded operands.
void expect_definition(const std::vector<float>& got, std::int64_t m, std::int64_t n, std::int64_t k,
                       MatrixView<float> a, MatrixView<float> b) {
    for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
            double exact = 0, magnitude = 0;
            for (std::int64_t p = 0; p < k; ++p) {
                const double product = rounded(at(a, i, p)) * rounded(at(b, p, j));
                exact += product;
                magnitude += std::abs(product);
            }
            ASSERT_NEAR(got[static_cast<std::size_t>(i * n + j)], exact, static_cast<double>(k) * 0x1p-24 * magnitude)
                << i << "," << j;
        }
    }
}

TEST(MatmulBf16Kernel, OperandsRoundToNearestEvenBf16) {
    // 1 + 2^-8 is halfway between the bf16 values 1 and 1 + 2^-7: ties to even, 1. 1 + 3·2^-8
    // is halfway between 1 + 2^-7 and 1 + 2^-6: 1 + 2^-6. f32 would keep both exactly.
    const std::vector<float> a = {1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f}, b = {1.0f, 1.0f};
    std::vector<float> c(1);
    for (int p = 0; p < 2; ++p) {
        scalar::matmul_bf16(MatmulF32{1, 1, 1, {a.data() + p, 1, 1}, {b.data() + p, 1, 1}, {c.data(), 1}}, {});
        EXPECT_EQ(c[0], p == 0 ? 1.0f : 1.0f + 0x1p-6f);
    }
}

TEST(MatmulBf16Kernel, SumsPairsOddStepFirst) {
    // Steps 1, 2^24, 1, -2^24. In pairs, odd step first: (2^24 + 1 = 2^24, a tie to even), then
    // -2^24 gives 0, then + 1: 1. Plain order p = 0..3 would give 0; the exact sum is 2.
    const std::vector<float> a = {1.0f, 1.0f, 1.0f, 1.0f}, b = {1.0f, 0x1p24f, 1.0f, -0x1p24f};
    std::vector<float> c(1);
    scalar::matmul_bf16(MatmulF32{1, 1, 4, {a.data(), 4, 1}, {b.data(), 1, 1}, {c.data(), 1}}, {});
    EXPECT_EQ(c[0], 1.0f);
}

TEST(MatmulBf16Kernel, SubnormalOperandsAndSumsFlushToZero) {
    const std::vector<float> a = {0x1p-130f, 0x1p-70f}, b = {0x1p100f, 0x1p-60f};
    std::vector<float> c(1);
    scalar::matmul_bf16(MatmulF32{1, 1, 1, {a.data(), 2, 1}, {b.data(), 1, 1}, {c.data(), 1}}, {});
    EXPECT_EQ(c[0], 0.0f) << "a subnormal operand is zero";
    scalar::matmul_bf16(MatmulF32{1, 1, 1, {a.data() + 1, 2, 1}, {b.data() + 1, 1, 1}, {c.data(), 1}}, {});
    EXPECT_EQ(c[0], 0.0f) << "2^-130, a subnormal sum, is flushed";
}

struct Size {
    std::int64_t m, n, k;
};

// Around the micro-tiles (12 or 6 rows x 32 or 16 columns), the 256-deep panels (odd depths
// end in a half pair) and the 192 x 256 cache blocks.
const std::vector<Size> kSizes = {
    {1, 1, 1},     {1, 37, 65},    {2, 3, 5},     {5, 17, 31},  {6, 16, 16},    {7, 33, 2},   {12, 32, 64},
    {13, 31, 255}, {11, 47, 257},  {25, 65, 100}, {3, 200, 40}, {200, 70, 9},   {37, 20, 600}, {4, 4, 0},
    {193, 257, 3}, {30, 290, 513},
};

struct Layouts {
    bool a_transposed, b_transposed;
};
const Layouts kLayouts[] = {{false, false}, {false, true}, {true, false}, {true, true}};

TEST(MatmulBf16Kernel, ScalarIsTheDefinitionEveryLayout) {
    std::uint32_t seed = 1;
    for (const auto& [m, n, k] : kSizes) {
        for (const Layouts layout : kLayouts) {
            const auto a_values = random_values(static_cast<std::size_t>(m * k), ++seed);
            const auto b_values = random_values(static_cast<std::size_t>(k * n), ++seed);
            const auto a = view(a_values, m, k, layout.a_transposed), b = view(b_values, k, n, layout.b_transposed);
            SCOPED_TRACE(testing::Message() << m << "x" << n << "x" << k << " at=" << layout.a_transposed
                                            << " bt=" << layout.b_transposed);
            expect_definition(scalar_product(m, n, k, a, b), m, n, k, a, b);
        }
    }
}

#if defined(FORGE_BACKEND_SIMD)
void expect_simd_bits_equal_scalar(float scale) {
    std::uint32_t seed = 100;
    for (const auto& [m, n, k] : kSizes) {
        for (const Layouts layout : kLayouts) {
            const auto a_values = random_values(static_cast<std::size_t>(m * k), ++seed, scale);
            const auto b_values = random_values(static_cast<std::size_t>(k * n), ++seed, scale);
            const auto a = view(a_values, m, k, layout.a_transposed), b = view(b_values, k, n, layout.b_transposed);
            SCOPED_TRACE(testing::Message() << m << "x" << n << "x" << k << " at=" << layout.a_transposed
                                            << " bt=" << layout.b_transposed << " scale=" << scale);
            const auto want = scalar_product(m, n, k, a, b);
            const auto got = run([](const MatmulF32& blk, std::span<float> s) { simd::matmul_bf16(blk, s); }, m, n, k, a,
                                 b, simd::matmul_scratch_floats(m, n, k));
            for (std::size_t i = 0; i < want.size(); ++i) {
                ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(want[i]))
                    << "at " << i << ": simd " << got[i] << ", scalar " << want[i];
            }
        }
    }
}

TEST(MatmulBf16Kernel, SimdEqualsScalarBitForBit) { expect_simd_bits_equal_scalar(1.0f); }

// Products near 2^-126, where sums go subnormal: VDPBF16PS flushes them as the definition
// does; the FMA fallback does not (kernels/matmul.h), so it is not held to this.
TEST(MatmulBf16Kernel, SimdFlushesSubnormalSumsAsScalar) {
    if (std::string_view(simd::matmul_bf16_path()) != "avx512_bf16") GTEST_SKIP() << "the FMA fallback keeps subnormals";
    expect_simd_bits_equal_scalar(0x1p-58f);
}
#endif

}  // namespace
}  // namespace forge::kernels
