// simd row conversions against the scalar ones, bit for bit (simd builds only).
#include "kernels/convert.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <vector>

namespace forge::kernels {
namespace {

// Lengths that straddle every vector width and leave every possible tail.
const std::vector<std::size_t> kLengths = {0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 1000, 4099};

std::vector<float> random_f32_patterns(std::size_t n, std::uint32_t seed) {
    // Raw bit patterns: covers NaNs, infinities, denormals and every exponent.
    std::mt19937 rng(seed);
    std::vector<float> values(n);
    for (auto& v : values) v = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    return values;
}

TEST(ConvertSimd, F32ToF16MatchesScalar) {
    for (std::size_t n : kLengths) {
        const auto src = random_f32_patterns(n, static_cast<std::uint32_t>(n));
        std::vector<std::uint16_t> expected(n), got(n);
        scalar::f32_to_f16(src, expected);
        simd::f32_to_f16(src, got);
        ASSERT_EQ(got, expected) << "n=" << n;
    }
}

TEST(ConvertSimd, F32ToBf16MatchesScalar) {
    for (std::size_t n : kLengths) {
        const auto src = random_f32_patterns(n, static_cast<std::uint32_t>(n) + 99);
        std::vector<std::uint16_t> expected(n), got(n);
        scalar::f32_to_bf16(src, expected);
        simd::f32_to_bf16(src, got);
        ASSERT_EQ(got, expected) << "n=" << n;
    }
}

TEST(ConvertSimd, EverySixteenBitPatternDecodesLikeScalar) {
    std::vector<std::uint16_t> all(65536);
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint16_t>(i);
    std::vector<float> expected(all.size()), got(all.size());
    scalar::f16_to_f32(all, expected);
    simd::f16_to_f32(all, got);
    for (std::size_t i = 0; i < all.size(); ++i) {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(expected[i])) << i;
    }
    scalar::bf16_to_f32(all, expected);
    simd::bf16_to_f32(all, got);
    for (std::size_t i = 0; i < all.size(); ++i) {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(expected[i])) << i;
    }
}

}  // namespace
}  // namespace forge::kernels
