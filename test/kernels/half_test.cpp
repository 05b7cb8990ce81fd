// f16 / bf16 <-> f32 conversions (kernels/half.h) against independent definitions:
// every f16 and bf16 bit pattern decoded by the textbook formula, and f32 -> 16-bit rounding
// checked at every rounding boundary (each midpoint between neighbours, and one f32 ulp
// either side of it), which is where round-to-nearest-even can go wrong.
#include "kernels/half.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace forge::kernels {
namespace {

// The value an f16 bit pattern denotes, straight from IEEE 754's definition.
double f16_value(std::uint16_t h) {
    const int sign = (h >> 15) ? -1 : 1;
    const int exponent = (h >> 10) & 0x1f;
    const int mantissa = h & 0x3ff;
    if (exponent == 0) return sign * std::ldexp(mantissa, -24);
    if (exponent == 31) return mantissa ? std::numeric_limits<double>::quiet_NaN() : sign * INFINITY;
    return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }

TEST(Half, EveryF16DecodesToItsIeeeValue) {
    for (std::uint32_t h = 0; h <= 0xffff; ++h) {
        const double expected = f16_value(static_cast<std::uint16_t>(h));
        const float got = f16_to_f32(static_cast<std::uint16_t>(h));
        if (std::isnan(expected)) {
            ASSERT_TRUE(std::isnan(got)) << std::hex << h;
            // Quieted; the payload moves to the top of the f32 mantissa; the sign is kept.
            EXPECT_EQ(bits(got), ((h & 0x8000u) << 16) | 0x7fc00000u | ((h & 0x3ffu) << 13)) << std::hex << h;
        } else {
            ASSERT_EQ(static_cast<double>(got), expected) << std::hex << h;
            ASSERT_EQ(std::signbit(got), (h & 0x8000u) != 0) << std::hex << h;
        }
    }
}

TEST(Half, EveryFiniteF16RoundTripsThroughF32) {
    for (std::uint32_t h = 0; h <= 0xffff; ++h) {
        if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0) continue;  // NaN: see the NaN test
        ASSERT_EQ(f32_to_f16(f16_to_f32(static_cast<std::uint16_t>(h))), h) << std::hex << h;
    }
}

// For each pair of neighbouring non-negative f16 values, the f32 midpoint must round to the
// even one, and the f32 values just below and above it to the nearer neighbour.
TEST(Half, F32ToF16RoundsToNearestEvenAtEveryBoundary) {
    for (std::uint32_t low = 0; low < 0x7c00u; ++low) {
        const std::uint32_t high = low + 1;  // 0x7bff + 1 = 0x7c00 is infinity: overflow boundary
        const double mid = (f16_value(static_cast<std::uint16_t>(low)) +
                            (high == 0x7c00u ? 65536.0 : f16_value(static_cast<std::uint16_t>(high)))) / 2;
        const float midpoint = static_cast<float>(mid);
        ASSERT_EQ(static_cast<double>(midpoint), mid) << "midpoint not exact in f32 at " << low;
        const std::uint32_t even = (low & 1u) ? high : low;
        for (float sign : {1.0f, -1.0f}) {
            const std::uint16_t sign_bit = sign < 0 ? 0x8000u : 0u;
            ASSERT_EQ(f32_to_f16(sign * midpoint), even | sign_bit) << std::hex << low;
            ASSERT_EQ(f32_to_f16(sign * std::nextafter(midpoint, 0.0f)), low | sign_bit) << std::hex << low;
            ASSERT_EQ(f32_to_f16(sign * std::nextafter(midpoint, INFINITY)), high | sign_bit) << std::hex << low;
        }
    }
}

TEST(Half, F32ToF16SpecialValues) {
    EXPECT_EQ(f32_to_f16(0.0f), 0x0000u);
    EXPECT_EQ(f32_to_f16(-0.0f), 0x8000u);
    EXPECT_EQ(f32_to_f16(INFINITY), 0x7c00u);
    EXPECT_EQ(f32_to_f16(-INFINITY), 0xfc00u);
    EXPECT_EQ(f32_to_f16(1e30f), 0x7c00u);
    EXPECT_EQ(f32_to_f16(65504.0f), 0x7bffu);
    EXPECT_EQ(f32_to_f16(std::numeric_limits<float>::denorm_min()), 0x0000u);  // f32 denormal -> 0
    EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -24)), 0x0001u);                       // smallest f16 subnormal
    EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -25)), 0x0000u);                       // tie with 0: even
    EXPECT_EQ(f32_to_f16(std::ldexp(1.5f, -25)), 0x0001u);
}

TEST(Half, F32ToF16KeepsNansQuietWithSignAndPayload) {
    for (std::uint32_t payload : {1u, 0x2000u, 0x400000u, 0x7fffffu, 0x12345u}) {
        for (std::uint32_t sign : {0u, 0x80000000u}) {
            const float nan = std::bit_cast<float>(sign | 0x7f800000u | payload);
            const std::uint16_t h = f32_to_f16(nan);
            EXPECT_EQ(h & 0x7e00u, 0x7e00u) << "not a quiet NaN";
            EXPECT_EQ(h & 0x8000u, sign >> 16);
            EXPECT_EQ(h & 0x1ffu, (payload >> 13) & 0x1ffu);
        }
    }
}

#if defined(__F16C__)
// The hardware's vcvtps2ph is a second, independent implementation: compare across a sweep of
// f32 bit patterns (every 257th of all 2^32, which covers every exponent and sign).
TEST(Half, F32ToF16MatchesF16cHardware) {
    for (std::uint64_t pattern = 0; pattern <= 0xffffffffull; pattern += 257) {
        const float value = std::bit_cast<float>(static_cast<std::uint32_t>(pattern));
        const auto hardware = static_cast<std::uint16_t>(_cvtss_sh(value, _MM_FROUND_TO_NEAREST_INT));
        ASSERT_EQ(f32_to_f16(value), hardware) << std::hex << pattern;
    }
}
#endif

TEST(Bf16, EveryBf16DecodesToTheTopHalfOfAnF32) {
    for (std::uint32_t b = 0; b <= 0xffff; ++b) {
        ASSERT_EQ(bits(bf16_to_f32(static_cast<std::uint16_t>(b))), b << 16);
    }
}

TEST(Bf16, F32ToBf16RoundsToNearestEvenAtEveryBoundary) {
    for (std::uint32_t low = 0; low < 0x7f80u; ++low) {
        const std::uint32_t high = low + 1;
        // Midpoint between two neighbouring bf16 values: low's bits with bit 15 set.
        const std::uint32_t midpoint = (low << 16) | 0x8000u;
        const std::uint32_t even = (low & 1u) ? high : low;
        for (std::uint32_t sign : {0u, 0x80000000u}) {
            const std::uint32_t s = sign >> 16;
            ASSERT_EQ(f32_to_bf16(std::bit_cast<float>(sign | midpoint)), even | s) << std::hex << low;
            ASSERT_EQ(f32_to_bf16(std::bit_cast<float>(sign | (midpoint - 1))), low | s) << std::hex << low;
            ASSERT_EQ(f32_to_bf16(std::bit_cast<float>(sign | (midpoint + 1))), high | s) << std::hex << low;
        }
    }
}

TEST(Bf16, SpecialValues) {
    EXPECT_EQ(f32_to_bf16(INFINITY), 0x7f80u);
    EXPECT_EQ(f32_to_bf16(-INFINITY), 0xff80u);
    EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::max()), 0x7f80u);  // rounds up to infinity
    EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::denorm_min()), 0x0000u);
    EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x00018000u)), 0x0002u);  // subnormal tie -> even
    const std::uint16_t nan = f32_to_bf16(std::bit_cast<float>(0xff800001u));  // payload only in low bits
    EXPECT_EQ(nan & 0x7fc0u, 0x7fc0u) << "must stay a (quiet) NaN, not become infinity";
    EXPECT_EQ(nan & 0x8000u, 0x8000u);
}

}  // namespace
}  // namespace forge::kernels
