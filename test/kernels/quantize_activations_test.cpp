// The simd activation encoders (Q8_0, Q8_K) against the scalar ones, byte for byte (simd
// builds only): random rows over thirty decades of scale, exact rounding ties, zeros of both
// signs, equal magnitudes of opposite sign, subnormals, infinities and NaNs.
#include "kernels/quantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <vector>

namespace forge::kernels {
namespace {

template <typename Block>
void expect_simd_matches_scalar(const std::vector<float>& x, const char* what) {
    const std::size_t blocks = x.size() / Block::kSize;
    std::vector<Block> want(blocks), got(blocks);
    std::memset(want.data(), 0xAB, blocks * sizeof(Block));  // padding bytes alike in both
    std::memset(got.data(), 0xAB, blocks * sizeof(Block));
    scalar::quantize(x, std::span<Block>(want));
    simd::quantize(x, std::span<Block>(got));
    for (std::size_t b = 0; b < blocks; ++b) {
        ASSERT_EQ(std::memcmp(&want[b], &got[b], sizeof(Block)), 0) << what << ": block " << b << " of " << blocks;
    }
}

template <typename Block>
void expect_all_cases_match() {
    constexpr std::size_t n = 8 * 256;  // 64 Q8_0 or 8 Q8_K blocks per row
    std::mt19937 rng(Block::kSize);
    std::normal_distribution<float> normal(0.0f, 1.0f);

    for (float scale : {1e-38f, 1e-30f, 1e-6f, 1.0f, 3.0f, 1e6f, 1e30f, 3e38f}) {
        std::vector<float> x(n);
        for (auto& v : x) v = scale * normal(rng);
        expect_simd_matches_scalar<Block>(x, "normal rows");
    }

    // With an extreme of +-127 both scales are exactly 1, so half-integers are exact ties
    // (roundf for Q8_0, ties to even for Q8_K).
    {
        std::vector<float> x(n);
        std::uniform_int_distribution<int> integer(-126, 125);
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = (i % 32 == 5) ? (i % 64 == 5 ? 127.0f : -127.0f) : static_cast<float>(integer(rng)) + 0.5f;
        }
        expect_simd_matches_scalar<Block>(x, "ties");
    }

    // All zeros, zeros of both signs, one non-zero value per block, a lone negative zero.
    {
        std::vector<float> x(n, 0.0f);
        expect_simd_matches_scalar<Block>(x, "zeros");
        for (std::size_t i = 0; i < n; i += 3) x[i] = -0.0f;
        expect_simd_matches_scalar<Block>(x, "signed zeros");
        for (std::size_t i = 7; i < n; i += Block::kSize) x[i] = (i / Block::kSize % 2 == 0) ? 2.5f : -1e-3f;
        expect_simd_matches_scalar<Block>(x, "one value per block");
    }

    // Equal magnitudes of opposite sign: the first one sets Q8_K's sign.
    {
        std::vector<float> x(n);
        for (auto& v : x) v = normal(rng);
        for (std::size_t b = 0; b < n; b += Block::kSize) {
            x[b + 3] = (b / Block::kSize % 2 == 0) ? -9.0f : 9.0f;
            x[b + Block::kSize - 2] = -x[b + 3];
        }
        expect_simd_matches_scalar<Block>(x, "opposite extremes");
    }

    // Subnormals, and values whose scales under- or overflow.
    {
        std::vector<float> x(n);
        const float tiny = std::numeric_limits<float>::denorm_min();
        for (std::size_t i = 0; i < n; ++i) x[i] = tiny * static_cast<float>(static_cast<int>(i % 200) - 100);
        expect_simd_matches_scalar<Block>(x, "subnormals");
        for (std::size_t i = 0; i < n; i += 17) x[i] = std::numeric_limits<float>::max() * (i % 2 ? 1.0f : -1.0f);
        expect_simd_matches_scalar<Block>(x, "subnormals and the largest floats");
    }

    // Infinities and NaNs scattered through ordinary rows.
    {
        std::vector<float> x(n);
        for (auto& v : x) v = normal(rng);
        for (std::size_t i = 11; i < n; i += 97) x[i] = std::numeric_limits<float>::infinity();
        for (std::size_t i = 40; i < n; i += 131) x[i] = -std::numeric_limits<float>::infinity();
        for (std::size_t i = 2; i < n; i += 61) x[i] = std::numeric_limits<float>::quiet_NaN();
        for (std::size_t i = 30; i < n; i += 89) x[i] = -std::numeric_limits<float>::quiet_NaN();
        expect_simd_matches_scalar<Block>(x, "infinities and NaNs");
    }
}

TEST(QuantizeActivationsSimd, Q8_0MatchesScalarBytes) { expect_all_cases_match<BlockQ8_0>(); }
TEST(QuantizeActivationsSimd, Q8_KMatchesScalarBytes) { expect_all_cases_match<BlockQ8_K>(); }

}  // namespace
}  // namespace forge::kernels
