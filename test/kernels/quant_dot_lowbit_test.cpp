// Quantized dot products of the low-bit formats (Q2_K, Q3_K, IQ4_NL, IQ4_XS, TQ1_0, TQ2_0, MXFP4) at
// the edges of their ranges, where a simd kernel's byte tricks could saturate or wrap: extreme
// scales, extreme quants, activations at ±127, every byte value of TQ1_0's base-3 packing.
// Scales are 1, so every partial sum is an integer: below 2^24 the scalar specification and the
// simd kernels must both equal the exact sum of the decoded products, bit for bit.
#include "kernels/backend.h"
#include "kernels/dequantize.h"
#include "kernels/quant_dot.h"
#include "kernels/quantize.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

namespace forge::kernels {
namespace {

constexpr f16_bits kHalfOne = 0x3C00;

// Activation blocks with every quant given by value(i) (i counts across blocks) and scale 1.
template <typename Act>
std::vector<Act> activations(std::size_t count, const std::function<int(std::size_t)>& value) {
    std::vector<Act> a(count);
    for (std::size_t b = 0; b < count; ++b) {
        for (std::size_t j = 0; j < a[b].qs.size(); ++j) a[b].qs[j] = static_cast<std::int8_t>(value(b * Act::kSize + j));
        if constexpr (std::is_same_v<Act, BlockQ8_K>) {
            a[b].d = 1.0f;
            for (std::size_t g = 0; g < 16; ++g) {
                int s = 0;
                for (std::size_t j = 0; j < 16; ++j) s += a[b].qs[16 * g + j];
                a[b].bsums[g] = static_cast<std::int16_t>(s);
            }
        } else {
            a[b].d = kHalfOne;
        }
    }
    return a;
}

// The dot product of the decoded rows in double (exact: small integers times powers of two),
// and the sum of the products' magnitudes.
template <typename Block, typename Act>
std::pair<double, double> exact_dot(const std::vector<Block>& w, const std::vector<Act>& a) {
    std::vector<float> wf(w.size() * Block::kSize), af(a.size() * Act::kSize);
    scalar::dequantize(std::span<const Block>(w), std::span<float>(wf));
    scalar::dequantize(std::span<const Act>(a), std::span<float>(af));
    double sum = 0, magnitude = 0;
    for (std::size_t i = 0; i < wf.size(); ++i) {
        sum += static_cast<double>(wf[i]) * af[i];
        magnitude += std::abs(static_cast<double>(wf[i]) * af[i]);
    }
    return {sum, magnitude};
}

// 10x the worst measured relative to M = Σ|leaf products| (MXFP4 random rows, up to 344
// blocks, simd build on AVX-512 and scalar build): scalar vs double 6.7e-9, simd vs double 1.1e-8, simd vs
// scalar 9.2e-9; IQ4_XS at full scale (below) 0.
constexpr double kLowBitBound = 1.2e-7;

// Where every partial sum is an integer below 2^24 (magnitude M < 2^24, scales 1), scalar and
// simd both equal the exact value, bit for bit. Beyond that (IQ4_XS at full scale), scalar
// still equals the exact value for one block (its integer sum is rounded once, like the exact
// value), and simd lies within kLowBitBound · M of scalar: the contract (kernels/quant_dot.h)
// allows 2 γ_D M, the simd build (AVX-512) measures 0 there.
template <typename Block, typename Act>
void expect_exact(const std::vector<Block>& w, const std::vector<Act>& a, const char* what) {
    const auto [exact, magnitude] = exact_dot(w, a);
    const float got = scalar::dot(std::span<const Block>(w), std::span<const Act>(a));
    const bool exact_in_f32 = magnitude < 16777216.0;
    if (exact_in_f32 || w.size() == 1) {
        EXPECT_EQ(got, static_cast<float>(exact)) << what << " (scalar)";
    }
#if defined(FORGE_BACKEND_SIMD)
    const float fast = simd::dot(std::span<const Block>(w), std::span<const Act>(a));
    if (exact_in_f32) {
        EXPECT_EQ(std::bit_cast<std::uint32_t>(fast), std::bit_cast<std::uint32_t>(got)) << what << " simd " << fast << " vs " << got;
    } else {
        EXPECT_NEAR(fast, got, kLowBitBound * magnitude) << what << " simd";
    }
#endif
}

// Four activation patterns (all +127, all -127, alternating, a ramp), for the whole row and
// for each block alone.
template <typename Block, typename Act>
void expect_exact_for_extreme_activations(const std::vector<Block>& w, const char* what) {
    const std::size_t per_block = Block::kSize / Act::kSize;
    const std::vector<std::function<int(std::size_t)>> patterns = {
        [](std::size_t) { return 127; },
        [](std::size_t) { return -127; },
        [](std::size_t i) { return i % 2 ? 127 : -127; },
        [](std::size_t i) { return static_cast<int>((i * 37) % 255) - 127; },
    };
    for (const auto& pattern : patterns) {
        expect_exact(w, activations<Act>(w.size() * per_block, pattern), what);
        for (std::size_t b = 0; b < w.size(); ++b) {
            expect_exact(std::vector<Block>{w[b]}, activations<Act>(per_block, pattern), what);
        }
    }
}

TEST(QuantDotLowBit, Q2_KExtremeScalesAndMins) {
    std::vector<BlockQ2_K> w(4);
    for (auto& b : w) {
        b.d = kHalfOne;
        b.dmin = kHalfOne;
    }
    w[0].scales.fill(0xFF);  // scale 15, min 15
    w[0].qs.fill(0xFF);      // q = 3 everywhere
    w[1].scales.fill(0x0F);  // scale 15, min 0
    w[1].qs.fill(0x00);
    w[2].scales.fill(0xF0);  // scale 0, min 15
    w[2].qs.fill(0xAA);      // q = 2
    for (std::size_t j = 0; j < 16; ++j) w[3].scales[j] = static_cast<std::uint8_t>(16 * j + 15 - j);  // all distinct
    for (std::size_t j = 0; j < 64; ++j) w[3].qs[j] = static_cast<std::uint8_t>(37 * j);
    expect_exact_for_extreme_activations<BlockQ2_K, BlockQ8_K>(w, "q2_K");
}

TEST(QuantDotLowBit, Q3_KAllScalesAtMinus32AndPlus31) {
    std::vector<BlockQ3_K> w(5);
    for (auto& b : w) b.d = kHalfOne;
    w[0].scales.fill(0x00);  // every six-bit scale 0: s - 32 = -32
    w[0].qs.fill(0x00);
    w[0].hmask.fill(0x00);   // q = -4 everywhere
    w[1].scales.fill(0xFF);  // 63: +31
    w[1].qs.fill(0x00);
    w[1].hmask.fill(0x00);
    w[2].scales.fill(0x00);
    w[2].qs.fill(0xFF);
    w[2].hmask.fill(0xFF);   // q = 3 everywhere
    w[3].scales.fill(0xAA);  // mixed scales, alternating high bits
    w[3].qs.fill(0x1B);
    w[3].hmask.fill(0x5A);
    for (std::size_t j = 0; j < 12; ++j) w[4].scales[j] = static_cast<std::uint8_t>(23 * j + 5);  // distinct scales
    for (std::size_t j = 0; j < 64; ++j) w[4].qs[j] = static_cast<std::uint8_t>(41 * j);
    for (std::size_t j = 0; j < 32; ++j) w[4].hmask[j] = static_cast<std::uint8_t>(13 * j);
    expect_exact_for_extreme_activations<BlockQ3_K, BlockQ8_K>(w, "q3_K");
}

TEST(QuantDotLowBit, IQ4_XSScaleExtremes) {
    std::vector<BlockIQ4_XS> w(3);
    for (auto& b : w) b.d = kHalfOne;
    w[0].scales_l.fill(0x00);  // ls 0: -32
    w[0].scales_h = 0x0000;
    w[0].qs.fill(0x00);  // level -127
    w[1].scales_l.fill(0xFF);  // ls 63: +31
    w[1].scales_h = 0xFFFF;
    w[1].qs.fill(0xFF);  // level 113
    w[2].scales_l.fill(0x0F);  // alternating -17 / +31 ...
    w[2].scales_h = 0x9C63;
    w[2].qs.fill(0xF0);
    expect_exact_for_extreme_activations<BlockIQ4_XS, BlockQ8_K>(w, "iq4_xs");
}

TEST(QuantDotLowBit, IQ4_NLExtremeLevelsAndTail) {
    // Seven blocks: one step of four, then the three-block tail.
    std::vector<BlockIQ4_NL> w(7);
    for (std::size_t i = 0; i < w.size(); ++i) {
        w[i].d = kHalfOne;
        w[i].qs.fill(static_cast<std::uint8_t>(i % 2 ? 0x0F : 0xF0));
    }
    w[6].qs.fill(0x00);
    expect_exact_for_extreme_activations<BlockIQ4_NL, BlockQ8_0>(w, "iq4_nl");
}

TEST(QuantDotLowBit, TQ1_0AllDigitsTwo) {
    std::vector<BlockTQ1_0> w(2);
    for (auto& b : w) {
        b.d = kHalfOne;
        b.qs.fill(0xFF);  // 255 · 3^n mod 256 stays ≥ 171: every trit is 2 (+1)
        b.qh.fill(0xFF);
    }
    expect_exact_for_extreme_activations<BlockTQ1_0, BlockQ8_K>(w, "tq1_0");
}

// Every byte value in every position of TQ1_0's qs and qh (the base-3 fraction decoding).
TEST(QuantDotLowBit, TQ1_0EveryByteValue) {
    std::vector<BlockTQ1_0> w(256);
    for (std::size_t i = 0; i < w.size(); ++i) {
        w[i].d = kHalfOne;
        for (std::size_t m = 0; m < 48; ++m) w[i].qs[m] = static_cast<std::uint8_t>(i + 7 * m);
        for (std::size_t m = 0; m < 4; ++m) w[i].qh[m] = static_cast<std::uint8_t>(i + 61 * m);
    }
    expect_exact_for_extreme_activations<BlockTQ1_0, BlockQ8_K>(w, "tq1_0");
}

TEST(QuantDotLowBit, TQ2_0EveryCode) {
    std::vector<BlockTQ2_0> w(4);
    for (std::size_t i = 0; i < w.size(); ++i) {
        w[i].d = kHalfOne;
        // Codes 0, 1, 2 and the unused 3 (decodes to +2, as in ggml).
        for (std::size_t m = 0; m < 64; ++m) w[i].qs[m] = static_cast<std::uint8_t>(0x55 * i + m);
    }
    expect_exact_for_extreme_activations<BlockTQ2_0, BlockQ8_K>(w, "tq2_0");
}

TEST(QuantDotLowBit, MXFP4EveryCodeUnitScale) {
    std::vector<BlockMXFP4> w(16);
    for (std::size_t i = 0; i < w.size(); ++i) {
        w[i].e = 128;  // 2^(128 - 128) = 1
        for (std::size_t j = 0; j < 16; ++j) w[i].qs[j] = static_cast<std::uint8_t>((i + j) % 16 | (((i * 3 + j) % 16) << 4));
    }
    expect_exact_for_extreme_activations<BlockMXFP4, BlockQ8_0>(w, "mxfp4");
}

// Random codes and exponents, activations from the Q8_0 encoder: scalar and simd against
// double precision and simd against scalar, within kLowBitBound · M (the contract allows
// 2 γ_D M, 4.1e-5·M at 344 blocks).
TEST(QuantDotLowBit, MXFP4RandomRows) {
    std::mt19937 rng(99);
    std::uniform_int_distribution<int> byte(0, 255), exponent(110, 140);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (const std::size_t blocks : {1u, 7u, 128u, 344u}) {
        std::vector<BlockMXFP4> w(blocks);
        for (auto& b : w) {
            b.e = static_cast<std::uint8_t>(exponent(rng));
            for (auto& q : b.qs) q = static_cast<std::uint8_t>(byte(rng));
        }
        std::vector<float> x(blocks * 32);
        for (auto& v : x) v = normal(rng);
        std::vector<BlockQ8_0> a(blocks);
        scalar::quantize(x, std::span<BlockQ8_0>(a));
        const auto [exact, magnitude] = exact_dot(w, a);
        const double bound = kLowBitBound * magnitude;
        const float got = scalar::dot(std::span<const BlockMXFP4>(w), std::span<const BlockQ8_0>(a));
        EXPECT_NEAR(got, exact, bound) << blocks << " blocks";
#if defined(FORGE_BACKEND_SIMD)
        const float fast = simd::dot(std::span<const BlockMXFP4>(w), std::span<const BlockQ8_0>(a));
        EXPECT_NEAR(fast, exact, bound) << blocks << " blocks (simd)";
        EXPECT_NEAR(fast, got, bound) << blocks << " blocks (simd vs scalar)";
#endif
    }
}

}  // namespace
}  // namespace forge::kernels
