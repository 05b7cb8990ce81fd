// Quantized dot products: the scalar specification against double-precision math on the
// decoded values, and (simd builds) the simd kernels against the scalar ones, bit for bit.
#include "kernels/backend.h"
#include "kernels/dequantize.h"
#include "kernels/quant_dot.h"
#include "kernels/quantize.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace forge::kernels {
namespace {

// Random weight blocks: every quant bit pattern, scales of moderate size (finite, both signs).
template <typename Block>
std::vector<Block> random_blocks(std::size_t count, std::mt19937& rng) {
    std::vector<Block> blocks(count);
    std::uniform_int_distribution<int> byte(0, 255);
    std::uniform_real_distribution<float> scale(-0.02f, 0.02f);
    auto* raw = reinterpret_cast<std::uint8_t*>(blocks.data());
    for (std::size_t i = 0; i < count * sizeof(Block); ++i) raw[i] = static_cast<std::uint8_t>(byte(rng));
    for (auto& b : blocks) {
        if constexpr (std::is_same_v<Block, BlockQ8_K>) b.d = scale(rng);
        else b.d = f32_to_f16(scale(rng));
        if constexpr (requires { b.dmin; }) b.dmin = f32_to_f16(scale(rng));
        if constexpr (requires { b.m; }) b.m = f32_to_f16(scale(rng));
    }
    return blocks;
}

// Activations as the matmul makes them: random floats quantized with the reference encoder.
template <typename Act>
std::vector<Act> random_activations(std::size_t count, std::mt19937& rng) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(count * Act::kSize);
    for (auto& v : x) v = normal(rng);
    std::vector<Act> a(count);
    scalar::quantize(x, std::span<Act>(a));
    return a;
}

template <typename Block, typename Act>
double reference_dot(const std::vector<Block>& w, const std::vector<Act>& a) {
    std::vector<float> wf(w.size() * Block::kSize), af(a.size() * Act::kSize);
    scalar::dequantize(std::span<const Block>(w), std::span<float>(wf));
    scalar::dequantize(std::span<const Act>(a), std::span<float>(af));
    double sum = 0;
    for (std::size_t i = 0; i < wf.size(); ++i) sum += static_cast<double>(wf[i]) * af[i];
    return sum;
}

template <typename Block, typename Act>
void check_format(const char* name) {
    std::mt19937 rng(1234);
    for (const std::size_t elements : {256u, 1024u, 4096u, 11008u / 256u * 256u}) {
        const std::size_t nw = elements / Block::kSize, na = elements / Act::kSize;
        for (int trial = 0; trial < 8; ++trial) {
            const auto w = random_blocks<Block>(nw, rng);
            const auto a = random_activations<Act>(na, rng);
            const float got = scalar::dot(std::span<const Block>(w), std::span<const Act>(a));
            const double want = reference_dot(w, a);
            // The spec adds one f32 term per block: allow a few ulps of the term magnitudes.
            double magnitude = 0;
            {
                std::vector<float> wf(elements), af(elements);
                scalar::dequantize(std::span<const Block>(w), std::span<float>(wf));
                scalar::dequantize(std::span<const Act>(a), std::span<float>(af));
                for (std::size_t i = 0; i < elements; ++i) magnitude += std::fabs(static_cast<double>(wf[i]) * af[i]);
            }
            EXPECT_NEAR(got, want, 1e-5 * magnitude + 1e-30) << name << " n=" << elements;
#if defined(FORGE_BACKEND_SIMD)
            const float fast = simd::dot(std::span<const Block>(w), std::span<const Act>(a));
            EXPECT_EQ(std::bit_cast<std::uint32_t>(fast), std::bit_cast<std::uint32_t>(got))
                << name << " simd " << fast << " vs scalar " << got << " n=" << elements;
#endif
        }
    }
}

TEST(QuantDot, Q4_0) { check_format<BlockQ4_0, BlockQ8_0>("q4_0"); }
TEST(QuantDot, Q4_1) { check_format<BlockQ4_1, BlockQ8_0>("q4_1"); }
TEST(QuantDot, Q5_0) { check_format<BlockQ5_0, BlockQ8_0>("q5_0"); }
TEST(QuantDot, Q5_1) { check_format<BlockQ5_1, BlockQ8_0>("q5_1"); }
TEST(QuantDot, Q8_0) { check_format<BlockQ8_0, BlockQ8_0>("q8_0"); }
TEST(QuantDot, IQ4_NL) { check_format<BlockIQ4_NL, BlockQ8_0>("iq4_nl"); }
TEST(QuantDot, Q2_K) { check_format<BlockQ2_K, BlockQ8_K>("q2_K"); }
TEST(QuantDot, Q3_K) { check_format<BlockQ3_K, BlockQ8_K>("q3_K"); }
TEST(QuantDot, Q4_K) { check_format<BlockQ4_K, BlockQ8_K>("q4_K"); }
TEST(QuantDot, Q5_K) { check_format<BlockQ5_K, BlockQ8_K>("q5_K"); }
TEST(QuantDot, Q6_K) { check_format<BlockQ6_K, BlockQ8_K>("q6_K"); }
TEST(QuantDot, Q8_K) { check_format<BlockQ8_K, BlockQ8_K>("q8_K"); }
TEST(QuantDot, IQ4_XS) { check_format<BlockIQ4_XS, BlockQ8_K>("iq4_xs"); }
TEST(QuantDot, TQ1_0) { check_format<BlockTQ1_0, BlockQ8_K>("tq1_0"); }
TEST(QuantDot, TQ2_0) { check_format<BlockTQ2_0, BlockQ8_K>("tq2_0"); }

// Q8_0 weights may hold -128 (ggml's encoder never writes it, other tools may): the simd
// kernel's sign trick must still be exact.
TEST(QuantDot, Q8_0WeightsAtMinus128) {
    std::mt19937 rng(5);
    auto w = random_blocks<BlockQ8_0>(8, rng);
    for (auto& b : w) b.qs.fill(-128);
    const auto a = random_activations<BlockQ8_0>(8, rng);
    const float got = scalar::dot(std::span<const BlockQ8_0>(w), std::span<const BlockQ8_0>(a));
    EXPECT_NEAR(got, reference_dot(w, a), 1e-3 * std::fabs(got) + 1e-20);
#if defined(FORGE_BACKEND_SIMD)
    EXPECT_EQ(std::bit_cast<std::uint32_t>(simd::dot(std::span<const BlockQ8_0>(w), std::span<const BlockQ8_0>(a))),
              std::bit_cast<std::uint32_t>(got));
#endif
}

}  // namespace
}  // namespace forge::kernels
