// Dot products of a quantized weight row with a quantized activation row: the inner loop of
// the quantized matmul. As in ggml, activations are quantized on the fly to Q8_0 (for the
// 32-element weight formats) or Q8_K (for the 256-element ones), so each block's products
// are integers.
//
// The specification (scalar) fixes the arithmetic so that every backend gets the same bits:
//   * within a block, the sum of quant products (times the integer sub-block scales) is
//     accumulated exactly in int32 — any order, any instruction set, same value;
//   * each block then adds its term to one f32 sum, in block order, with the products
//     written in the scalar code's order (for 32-element formats: (dw * da) * isum, plus
//     (mw * da) * Σa for the formats with a min; for K-formats: (da * dw) * isum minus
//     (da * dmin) * Σ min_j Σa_j, where Σa comes from the quants themselves, not bsums).
// ggml's own vec_dot kernels differ from one another in that last float step, so forge's
// results match ggml to float rounding, and simd matches scalar exactly.
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

// Same bits as scalar; AVX2 (and AVX-512 VNNI where the build targets it) integer dot
// products for Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K and Q8_K, scalar for the rest
// (Q2_K, Q3_K, IQ4_NL, IQ4_XS, TQ1_0, TQ2_0).
namespace simd {
float dot(std::span<const BlockQ4_0> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockQ4_1> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockQ5_0> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockQ5_1> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockQ8_0> w, std::span<const BlockQ8_0> a) noexcept;
float dot(std::span<const BlockIQ4_NL> w, std::span<const BlockQ8_0> a) noexcept;
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
