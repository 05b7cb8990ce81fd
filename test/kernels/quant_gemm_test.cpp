// Quantized GEMM: the specification is a loop over scalar::dot; the simd GEMM must give every
// output exactly the bits of simd::dot for the same rows, for every tile shape and edge
// (rows and columns left over, odd block counts, strided operands).
#include "kernels/backend.h"
#include "kernels/quant_dot.h"
#include "kernels/quant_gemm.h"
#include "test/kernels/quant_test_data.h"

#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <vector>

namespace forge::kernels {
namespace {

// Runs `gemm` on [rows x blocks] activations and [cols x blocks] weights, both stored with
// one spare block per row (strides wider than the rows), and checks each output against
// `dot` bit for bit.
template <typename Block, typename Gemm, typename Dot>
void check_against_dot(std::int64_t rows, std::int64_t cols, std::int64_t blocks, Gemm gemm, Dot dot) {
    std::mt19937 rng(static_cast<unsigned>(rows * 1000 + cols * 10 + blocks));
    const std::int64_t stride = blocks + 1, y_stride = cols + 3;
    const auto w = random_blocks<Block>(static_cast<std::size_t>(cols * stride), rng);
    const auto a = random_activations<BlockQ8_0>(static_cast<std::size_t>(rows * stride), rng);
    std::vector<float> y(static_cast<std::size_t>(rows * y_stride), -1.0f);
    gemm(QuantGemm<Block, BlockQ8_0>{rows, cols, blocks, a.data(), stride, w.data(), stride, y.data(), y_stride});
    for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t c = 0; c < cols; ++c) {
            const float want = dot(std::span<const Block>(w.data() + c * stride, static_cast<std::size_t>(blocks)),
                                   std::span<const BlockQ8_0>(a.data() + r * stride, static_cast<std::size_t>(blocks)));
            const float got = y[static_cast<std::size_t>(r * y_stride + c)];
            ASSERT_EQ(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(want))
                << rows << "x" << cols << "x" << blocks << " at (" << r << ", " << c << "): " << got << " vs " << want;
        }
        // The padding between output rows is left alone.
        for (std::int64_t c = cols; c < y_stride; ++c) ASSERT_EQ(y[static_cast<std::size_t>(r * y_stride + c)], -1.0f);
    }
}

template <typename Block>
void check_format() {
    // Every tile edge (1..9 rows and columns around the 4 x 4 and 4 x 3 tiles), odd and even
    // block counts, a single block.
    for (const std::int64_t blocks : {1, 2, 7, 32}) {
        for (std::int64_t rows = 1; rows <= 9; ++rows) {
            for (std::int64_t cols = 1; cols <= 9; ++cols) {
                check_against_dot<Block>(rows, cols, blocks, [](const auto& g) { scalar::gemm(g); },
                                         [](auto w, auto a) { return scalar::dot(w, a); });
#if defined(FORGE_BACKEND_SIMD)
                check_against_dot<Block>(rows, cols, blocks, [](const auto& g) { simd::gemm(g); },
                                         [](auto w, auto a) { return simd::dot(w, a); });
#endif
            }
        }
    }
}

TEST(QuantGemm, Q4_0MatchesDot) { check_format<BlockQ4_0>(); }
TEST(QuantGemm, Q8_0MatchesDot) { check_format<BlockQ8_0>(); }

#if defined(FORGE_BACKEND_SIMD)
// Q8_0 weights at -128 (the extreme of the unsigned-shift trick) and activations at ±127.
TEST(QuantGemm, Q8_0Extremes) {
    std::mt19937 rng(3);
    auto w = random_blocks<BlockQ8_0>(3 * 5, rng);
    auto a = random_activations<BlockQ8_0>(5 * 5, rng);
    for (std::size_t i = 0; i < w.size(); ++i) w[i].qs.fill(i % 2 ? -128 : 127);
    for (std::size_t i = 0; i < a.size(); ++i) a[i].qs.fill(i % 3 ? 127 : -127);
    std::vector<float> y(5 * 3);
    simd::gemm(QuantGemmQ8_0{5, 3, 5, a.data(), 5, w.data(), 5, y.data(), 3});
    for (std::int64_t r = 0; r < 5; ++r) {
        for (std::int64_t c = 0; c < 3; ++c) {
            const float want = simd::dot(std::span<const BlockQ8_0>(w.data() + c * 5, 5),
                                         std::span<const BlockQ8_0>(a.data() + r * 5, 5));
            EXPECT_EQ(std::bit_cast<std::uint32_t>(y[static_cast<std::size_t>(r * 3 + c)]), std::bit_cast<std::uint32_t>(want));
        }
    }
}
#endif

}  // namespace
}  // namespace forge::kernels
