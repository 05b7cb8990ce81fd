// Dot products of a quantized weight row with a quantized activation row: the inner loop of
// the quantized matmul. As in ggml, activations are quantized on the fly to Q8_0 (for the
// 32-element weight formats) or Q8_K (for the 256-element ones), so each block's products
// are integers.
//
// The contract every backend keeps (the scalar code is its plainest reading):
//   * Integer part, exact. Within a block, the sums of quant products (times the integer
//     sub-block scales) and of activation quants are exact int32 values — any order, any
//     instruction set, same integers. Q8_K's bsums may stand in for sums of its quants (the
//     quantizer writes them consistently).
//   * Float part, rounded. Each block contributes float terms (dw * da) * isum, plus
//     (mw * da) * Σa for the 32-element formats with a min, minus (da * dmin) * Σ min_j Σa_j
//     for the K-formats with mins. The scalar code adds them to one f32 sum in block order;
//     a simd kernel may split a block's integer sum over lanes, convert the lanes to f32,
//     multiply-add them into f32 vector accumulators (fused or not) and add the lanes up once
//     at the end, as ggml's kernels do.
// So two backends differ only by f32 rounding. Bound: write the result as a tree of roundings
// over leaves (scale product) x (integer partial sum); if no leaf passes through more than D
// roundings (every kernel here adds at most two f32 terms per block to any accumulator, so
// D <= 2 n_blocks + 8), each result lies within γ_D · M of the
// exact value, where γ_D = D·u / (1 - D·u), u = 2^-24 and M = Σ |dw da| Σ|q a| + Σ |dmin da| Σ|m a|
// over all blocks (the sum of absolute element products); two backends within 2·γ_D · M of
// each other. When every scale is a power of two and M stays below 2^24 times the smallest
// scale product, every partial sum is exact and all backends agree bit for bit
// (test/kernels/quant_dot_test.cpp checks both).
#pragma once

#include "kernels/quant_blocks.h"

#include <span>

namespace forge::kernels {

// w and a have the same number of elements.
namespace scalar {
float dot(std::span<const BlockQ4_0> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockQ4_1> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockQ5_0> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockQ5_1> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockQ8_0> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockIQ4_NL> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockMXFP4> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockQ2_K> w, std::span<const BlockQ8_K> a) noexcept;
float dot(std::span<const BlockQ3_K> w, std::span<const BlockQ8_K> a) noexcept;
float dot(std::span<const BlockQ4_K> w, std::span<const BlockQ8_K> a) noexcept;
float dot(std::span<const BlockQ5_K> w, std::span<const BlockQ8_K> a) noexcept;
float dot(std::span<const BlockQ6_K> w, std::span<const BlockQ8_K> a) noexcept;
float dot(std::span<const BlockQ8_K> w, std::span<const BlockQ8_K> a) noexcept;
float dot(std::span<const BlockIQ4_XS> w, std::span<const BlockQ8_K> a) noexcept;
float dot(std::span<const BlockTQ1_0> w, std::span<const BlockQ8_K> a) noexcept;
float dot(std::span<const BlockTQ2_0> w, std::span<const BlockQ8_K> a) noexcept;
}  // namespace scalar

// Same integers as scalar, float steps lane-wise; AVX2 (and AVX-512 VNNI where the build
// targets it) for Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K and Q8_K; the low-bit
// formats (Q2_K, Q3_K, IQ4_NL, IQ4_XS, TQ1_0, TQ2_0) as their own kernels file says.
namespace simd {
float dot(std::span<const BlockQ4_0> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockQ4_1> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockQ5_0> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockQ5_1> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockQ8_0> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockIQ4_NL> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockMXFP4> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockQ2_K> w, std::span<const BlockQ8_K> a) noexcept;
float dot(std::span<const BlockQ3_K> w, std::span<const BlockQ8_K> a) noexcept;
float dot(std::span<const BlockQ4_K> w, std::span<const BlockQ8_K> a) noexcept;
float dot(std::span<const BlockQ5_K> w, std::span<const BlockQ8_K> a) noexcept;
float dot(std::span<const BlockQ6_K> w, std::span<const BlockQ8_K> a) noexcept;
float dot(std::span<const BlockQ8_K> w, std::span<const BlockQ8_K> a) noexcept;
float dot(std::span<const BlockIQ4_XS> w, std::span<const BlockQ8_K> a) noexcept;
float dot(std::span<const BlockTQ1_0> w, std::span<const BlockQ8_K> a) noexcept;
float dot(std::span<const BlockTQ2_0> w, std::span<const BlockQ8_K> a) noexcept;
}  // namespace simd

}  // namespace forge::kernels
