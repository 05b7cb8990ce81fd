// The arithmetic contract of kernels/quant_dot.h as tests check it: power-of-two scales and
// small activations that make every partial sum exact (so backends agree bit for bit), the
// magnitude M of the rounding bound, and the bound 2·γ_D · M itself. Shared by the dot and
// GEMM tests of every quantized kernel.
#pragma once

#include "kernels/dequantize.h"
#include "kernels/half.h"
#include "kernels/quant_blocks.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <type_traits>
#include <vector>

namespace forge::kernels {

// ---- power-of-two scales: every partial sum exact --------------------------------------------

// ±2^-lo or ±2^-(lo+1), at random.
inline float power_of_two(int lo, std::mt19937& rng) {
    std::uniform_int_distribution<int> bit(0, 1);
    const float magnitude = std::ldexp(1.0f, -(lo + bit(rng)));
    return bit(rng) ? magnitude : -magnitude;
}

// Weight scales d in ±{2^-4, 2^-5}, mins in ±{2^-5, 2^-6}; activation scales in ±{2^-3, 2^-4}.
// The smallest product of a weight scale and an activation scale is then 2^-10.
constexpr double kSmallestScaleProduct = 0x1p-10;

template <typename Block>
inline void use_power_of_two_scales(std::vector<Block>& blocks, std::mt19937& rng) {
    for (auto& b : blocks) {
        if constexpr (std::is_same_v<Block, BlockQ8_K>) b.d = power_of_two(4, rng);
        else if constexpr (std::is_same_v<Block, BlockMXFP4>) b.e = static_cast<std::uint8_t>(std::ilogb(std::fabs(power_of_two(4, rng))) + 128);
        else b.d = f32_to_f16(power_of_two(4, rng));
        if constexpr (requires { b.dmin; }) b.dmin = f32_to_f16(power_of_two(5, rng));
        if constexpr (requires { b.m; }) b.m = f32_to_f16(power_of_two(5, rng));
    }
}

// Activation blocks with quants uniform in [-limit, limit] and power-of-two scales (Q8_K's
// bsums consistent with its quants, as the quantizer writes them).
template <typename Act>
inline std::vector<Act> small_activations(std::size_t count, int limit, std::mt19937& rng) {
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
inline std::vector<float> decoded(const std::vector<Block>& blocks) {
    std::vector<float> values(blocks.size() * Block::kSize);
    scalar::dequantize(std::span<const Block>(blocks), std::span<float>(values));
    return values;
}

template <typename Block, typename Act>
inline double reference_dot(const std::vector<Block>& w, const std::vector<Act>& a) {
    const auto wf = decoded(w), af = decoded(a);
    double sum = 0;
    for (std::size_t i = 0; i < wf.size(); ++i) sum += static_cast<double>(wf[i]) * af[i];
    return sum;
}

// M = Σ |dw da q a| + Σ |dmin da m a| over all elements: the sum of the absolute values of
// every leaf product, whichever way a kernel groups them. The weight splits into its scaled
// part (mins zeroed) and its min part (scales zeroed); each decodes exactly.
template <typename Block, typename Act>
inline double absolute_product_sum(const std::vector<Block>& w, const std::vector<Act>& a) {
    auto scaled = w, mins = w;
    for (auto& b : scaled) {
        if constexpr (requires { b.dmin; }) b.dmin = f32_to_f16(0.0f);
        if constexpr (requires { b.m; }) b.m = f32_to_f16(0.0f);
    }
    for (auto& b : mins) {
        if constexpr (std::is_same_v<Block, BlockQ8_K>) b.d = 0.0f;
        else if constexpr (requires { b.d; }) b.d = f32_to_f16(0.0f);
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
// too. Measured over every format and length of quant_dot_test (up to 11 008 elements, 8 rows
// each, simd build on AVX-512 and scalar build): scalar vs double <= 2.2e-8·M (q4_1), simd vs
// double <= 3.9e-8·M (iq4_nl), simd vs scalar <= 5.0e-8·M (q5_0). About 8 f32 roundings of M,
// far inside γ_D.
constexpr double kDotBound = 5e-7;

// |interleaved GEMM - scalar::dot| <= kGemmBound<Block> · M, 10x the worst measured over every
// output of quant_gemm_interleaved_test (random and extreme blocks; simd build, AVX-512 VNNI):
// Q4_0 6.30e-8, Q8_0 5.33e-8, Q4_K 3.34e-8, Q5_K 3.15e-8, Q6_K 2.49e-8 (·M). The contract
// itself (kernels/quant_dot.h) allows 2·γ_D · M, D = 2·n_blocks + 8.
template <typename Block>
constexpr double kGemmBound = 0.0;  // no interleaved kernel: every case must name its bound
template <>
inline constexpr double kGemmBound<BlockQ4_0> = 6.3e-7;
template <>
inline constexpr double kGemmBound<BlockQ8_0> = 5.3e-7;
template <>
inline constexpr double kGemmBound<BlockQ4_K> = 3.3e-7;
template <>
inline constexpr double kGemmBound<BlockQ5_K> = 3.2e-7;
template <>
inline constexpr double kGemmBound<BlockQ6_K> = 2.5e-7;
// MXFP4's, Q5_0's and Q5_1's kernels take scalar::dot's float steps in its order: its bits
// exactly.
template <>
inline constexpr double kGemmBound<BlockMXFP4> = 0.0;
template <>
inline constexpr double kGemmBound<BlockQ5_0> = 0.0;
template <>
inline constexpr double kGemmBound<BlockQ5_1> = 0.0;

}  // namespace forge::kernels
