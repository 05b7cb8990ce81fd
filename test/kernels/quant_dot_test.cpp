// Quantized dot products: the scalar specification against double-precision math on the
// decoded values, and (simd builds) the simd kernels against the scalar ones under the
// contract of kernels/quant_dot.h: bit for bit where every partial sum is exact (power-of-two
// scales, small sums). Everywhere else the contract's worst case is 2·γ_D · M (8.3e-5·M at
// 11 008 elements); the test holds both backends to 10x what they measure: kDotBound below.
#include "kernels/backend.h"
#include "kernels/dequantize.h"
#include "kernels/quant_dot.h"
#include "kernels/quantize.h"
#include "test/kernels/quant_test_data.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace forge::kernels {
namespace {

// ---- power-of-two scales: every partial sum exact --------------------------------------------

// ±2^-lo or ±2^-(lo+1), at random.
float power_of_two(int lo, std::mt19937& rng) {
    std::uniform_int_distribution<int> bit(0, 1);
    const float magnitude = std::ldexp(1.0f, -(lo + bit(rng)));
    return bit(rng) ? magnitude : -magnitude;
}

// Weight scales d in ±{2^-4, 2^-5}, mins in ±{2^-5, 2^-6}; activation scales in ±{2^-3, 2^-4}.
// The smallest product of a weight scale and an activation scale is then 2^-10.
constexpr double kSmallestScaleProduct = 0x1p-10;

template <typename Block>
void use_power_of_two_scales(std::vector<Block>& blocks, std::mt19937& rng) {
    for (auto& b : blocks) {
        if constexpr (std::is_same_v<Block, BlockQ8_K>) b.d = power_of_two(4, rng);
        else b.d = f32_to_f16(power_of_two(4, rng));
        if constexpr (requires { b.dmin; }) b.dmin = f32_to_f16(power_of_two(5, rng));
        if constexpr (requires { b.m; }) b.m = f32_to_f16(power_of_two(5, rng));
    }
}

// Activation blocks with quants uniform in [-limit, limit] and power-of-two scales (Q8_K's
// bsums consistent with its quants, as the quantizer writes them).
template <typename Act>
std::vector<Act> small_activations(std::size_t count, int limit, std::mt19937& rng) {
    std::uniform_int_distribution<int> quant(-limit, limit);
    std::vector<Act> a(count);
    for (auto& b : a) {
        for (auto& q : b.qs) q = static_cast<std::int8_t>(quant(rng));
        if constexpr (std::is_same_v<Act, BlockQ8_K>) {
            b.d = power_of_two(3, rng);
            for (std::size_t j = 0; j < 16; ++j) {
                int sum = 0;
                for (std::size_t l = 0; l < 16; ++l) sum += b.qs[16 * j + l];
                b.bsums[j] = static_cast<std::int16_t>(sum);
            }
        } else {
            b.d = f32_to_f16(power_of_two(3, rng));
        }
    }
    return a;
}

// ---- the reference and the magnitude M of the rounding bound ---------------------------------

template <typename Block>
std::vector<float> decoded(const std::vector<Block>& blocks) {
    std::vector<float> values(blocks.size() * Block::kSize);
    scalar::dequantize(std::span<const Block>(blocks), std::span<float>(values));
    return values;
}

template <typename Block, typename Act>
double reference_dot(const std::vector<Block>& w, const std::vector<Act>& a) {
    const auto wf = decoded(w), af = decoded(a);
    double sum = 0;
    for (std::size_t i = 0; i < wf.size(); ++i) sum += static_cast<double>(wf[i]) * af[i];
    return sum;
}

// M = Σ |dw da q a| + Σ |dmin da m a| over all elements: the sum of the absolute values of
// every leaf product, whichever way a kernel groups them. The weight splits into its scaled
// part (mins zeroed) and its min part (scales zeroed); each decodes exactly.
template <typename Block, typename Act>
double absolute_product_sum(const std::vector<Block>& w, const std::vector<Act>& a) {
    auto scaled = w, mins = w;
    for (auto& b : scaled) {
        if constexpr (requires { b.dmin; }) b.dmin = f32_to_f16(0.0f);
        if constexpr (requires { b.m; }) b.m = f32_to_f16(0.0f);
    }
    for (auto& b : mins) {
        if constexpr (std::is_same_v<Block, BlockQ8_K>) b.d = 0.0f;
        else b.d = f32_to_f16(0.0f);
    }
    constexpr bool kHasMin = requires(Block b) { b.dmin; } || requires(Block b) { b.m; };
    const auto sf = decoded(scaled), mf = decoded(mins), af = decoded(a);
    double sum = 0;
    for (std::size_t i = 0; i < af.size(); ++i) {
        const double weight = std::fabs(static_cast<double>(sf[i])) + (kHasMin ? std::fabs(static_cast<double>(mf[i])) : 0.0);
        sum += weight * std::fabs(static_cast<double>(af[i]));
    }
    return sum;
}

// |result - double-precision dot| <= kDotBound · M for scalar and simd, and |simd - scalar|
// too. Measured over every format and length below (up to 11 008 elements, 8 rows each,
// simd build on AVX-512 and scalar build): scalar vs double <= 2.2e-8·M (q4_1), simd vs double <= 3.9e-8·M
// (iq4_nl), simd vs scalar <= 5.0e-8·M (q5_0). About 8 f32 roundings of M, far inside γ_D.
constexpr double kDotBound = 5e-7;

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
