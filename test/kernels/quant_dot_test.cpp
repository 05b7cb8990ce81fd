// Quantized dot products: the scalar specification against double-precision math on the
// decoded values, and (simd builds) the simd kernels against the scalar ones under the
// contract of kernels/quant_dot.h: bit for bit where every partial sum is exact (power-of-two
// scales, small sums). Everywhere else the contract's worst case is 2·γ_D · M (8.3e-5·M at
// 11 008 elements); the test holds both backends to 10x what they measure: kDotBound.
#include "kernels/backend.h"
#include "kernels/dequantize.h"
#include "kernels/quant_dot.h"
#include "kernels/quantize.h"
#include "test/kernels/quant_contract.h"
#include "test/kernels/quant_test_data.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace forge::kernels {
namespace {

// Element counts with odd and even numbers of blocks, so kernels that take two blocks at a
// time meet their tails.
template <typename Block>
std::vector<std::size_t> element_counts() {
    if constexpr (Block::kSize == 32) return {32, 288, 1056, 4128, 11008};
    else return {256, 768, 2304, 11008 / 256 * 256};
}

template <typename Block, typename Act>
void check_format(const char* name) {
    std::mt19937 rng(1234);
    for (const std::size_t elements : element_counts<Block>()) {
        const std::size_t nw = elements / Block::kSize, na = elements / Act::kSize;
        for (int trial = 0; trial < 8; ++trial) {
            const auto w = random_blocks<Block>(nw, rng);
            const auto a = random_activations<Act>(na, rng);
            const float got = scalar::dot(std::span<const Block>(w), std::span<const Act>(a));
            const double magnitude = absolute_product_sum(w, a);
            const double exact = reference_dot(w, a);
            EXPECT_NEAR(got, exact, kDotBound * magnitude + 1e-30) << name << " n=" << elements;
#if defined(FORGE_BACKEND_SIMD)
            const float fast = simd::dot(std::span<const Block>(w), std::span<const Act>(a));
            EXPECT_NEAR(fast, exact, kDotBound * magnitude + 1e-30) << name << " simd n=" << elements;
            EXPECT_NEAR(fast, got, kDotBound * magnitude + 1e-30)
                << name << " simd " << fast << " vs scalar " << got << " n=" << elements;
#endif
        }
    }
}

// Power-of-two scales and activation quants small enough that M < 2^24 · (smallest scale
// product): every partial sum is exact, so any two backends agree bit for bit. This pins the
// integer part of each block (a wrong product anywhere changes the result).
template <typename Block, typename Act>
void check_format_exact(const char* name) {
    std::mt19937 rng(99);
    // All but the longest row: at 11008 elements even ±1 activations can reach 2^24.
    auto counts = element_counts<Block>();
    counts.pop_back();
    for (const std::size_t elements : counts) {
        const std::size_t nw = elements / Block::kSize, na = elements / Act::kSize;
        for (int trial = 0; trial < 4; ++trial) {
            auto w = random_blocks<Block>(nw, rng);
            use_power_of_two_scales(w, rng);
            // The widest activation range that keeps every partial sum exact.
            std::vector<Act> a;
            int limit = 127;
            for (;; limit /= 2) {
                a = small_activations<Act>(na, limit, rng);
                if (absolute_product_sum(w, a) < 0x1p24 * kSmallestScaleProduct || limit == 1) break;
            }
            ASSERT_LT(absolute_product_sum(w, a), 0x1p24 * kSmallestScaleProduct) << name << " n=" << elements;
            const float got = scalar::dot(std::span<const Block>(w), std::span<const Act>(a));
            EXPECT_EQ(static_cast<double>(got), reference_dot(w, a)) << name << " n=" << elements;
#if defined(FORGE_BACKEND_SIMD)
            const float fast = simd::dot(std::span<const Block>(w), std::span<const Act>(a));
            EXPECT_EQ(std::bit_cast<std::uint32_t>(fast), std::bit_cast<std::uint32_t>(got))
                << name << " simd " << fast << " vs scalar " << got << " n=" << elements << " limit " << limit;
#endif
        }
    }
}

#define FORGE_QUANT_DOT_TESTS(Test, Block, Act, name)                      \
    TEST(QuantDot, Test) { check_format<Block, Act>(name); }                \
    TEST(QuantDotExact, Test) { check_format_exact<Block, Act>(name); }

FORGE_QUANT_DOT_TESTS(Q4_0, BlockQ4_0, BlockQ8_0, "q4_0")
FORGE_QUANT_DOT_TESTS(Q4_1, BlockQ4_1, BlockQ8_0, "q4_1")
FORGE_QUANT_DOT_TESTS(Q5_0, BlockQ5_0, BlockQ8_0, "q5_0")
FORGE_QUANT_DOT_TESTS(Q5_1, BlockQ5_1, BlockQ8_0, "q5_1")
FORGE_QUANT_DOT_TESTS(Q8_0, BlockQ8_0, BlockQ8_0, "q8_0")
FORGE_QUANT_DOT_TESTS(IQ4_NL, BlockIQ4_NL, BlockQ8_0, "iq4_nl")
FORGE_QUANT_DOT_TESTS(Q2_K, BlockQ2_K, BlockQ8_K, "q2_K")
FORGE_QUANT_DOT_TESTS(Q3_K, BlockQ3_K, BlockQ8_K, "q3_K")
FORGE_QUANT_DOT_TESTS(Q4_K, BlockQ4_K, BlockQ8_K, "q4_K")
FORGE_QUANT_DOT_TESTS(Q5_K, BlockQ5_K, BlockQ8_K, "q5_K")
FORGE_QUANT_DOT_TESTS(Q6_K, BlockQ6_K, BlockQ8_K, "q6_K")
FORGE_QUANT_DOT_TESTS(Q8_K, BlockQ8_K, BlockQ8_K, "q8_K")
FORGE_QUANT_DOT_TESTS(IQ4_XS, BlockIQ4_XS, BlockQ8_K, "iq4_xs")
FORGE_QUANT_DOT_TESTS(TQ1_0, BlockTQ1_0, BlockQ8_K, "tq1_0")
FORGE_QUANT_DOT_TESTS(TQ2_0, BlockTQ2_0, BlockQ8_K, "tq2_0")

// Q8_0 weights may hold -128 (ggml's encoder never writes it, other tools may): the simd
// kernel's sign trick must still be exact.
TEST(QuantDot, Q8_0WeightsAtMinus128) {
    std::mt19937 rng(5);
    auto w = random_blocks<BlockQ8_0>(9, rng);
    for (auto& b : w) b.qs.fill(-128);
    const auto a = random_activations<BlockQ8_0>(9, rng);
    const float got = scalar::dot(std::span<const BlockQ8_0>(w), std::span<const BlockQ8_0>(a));
    EXPECT_NEAR(got, reference_dot(w, a), 1e-3 * std::fabs(got) + 1e-20);
#if defined(FORGE_BACKEND_SIMD)
    // Power-of-two scales: exact, so bit for bit.
    use_power_of_two_scales(w, rng);
    const auto small = small_activations<BlockQ8_0>(9, 31, rng);
    ASSERT_LT(absolute_product_sum(w, small), 0x1p24 * kSmallestScaleProduct);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(simd::dot(std::span<const BlockQ8_0>(w), std::span<const BlockQ8_0>(small))),
              std::bit_cast<std::uint32_t>(scalar::dot(std::span<const BlockQ8_0>(w), std::span<const BlockQ8_0>(small))));
#endif
}

}  // namespace
}  // namespace forge::kernels
