// Decoding GGML blocks to f32, bit-exact with ggml's dequantize_row_* (ggml/src/ggml-quants.c):
// the same products in the same order, so every output float has the same bits. (Built with
// -ffp-contract=off: a fused multiply-add would round differently.)
//
// Each function decodes every block of `blocks` into `out`, which holds exactly
// blocks.size() * Block::kSize floats.
#pragma once

#include "kernels/quant_blocks.h"

#include <span>

namespace forge::kernels {

// scalar: the specification.
namespace scalar {
void dequantize(std::span<const BlockQ4_0> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ4_1> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ5_0> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ5_1> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ8_0> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ2_K> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ3_K> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ4_K> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ5_K> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ6_K> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ8_K> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockIQ4_NL> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockMXFP4> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockIQ4_XS> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockTQ1_0> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockTQ2_0> blocks, std::span<float> out) noexcept;
}  // namespace scalar

// simd: the same bits, vectorized where it pays (the rest forward to scalar).
namespace simd {
void dequantize(std::span<const BlockQ4_0> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ4_1> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ5_0> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ5_1> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ8_0> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ2_K> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ3_K> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ4_K> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ5_K> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ6_K> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockQ8_K> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockIQ4_NL> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockMXFP4> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockIQ4_XS> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockTQ1_0> blocks, std::span<float> out) noexcept;
void dequantize(std::span<const BlockTQ2_0> blocks, std::span<float> out) noexcept;
}  // namespace simd

}  // namespace forge::kernels
