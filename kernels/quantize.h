// Encoding f32 to GGML blocks, byte-exact with ggml's reference quantizers
// (quantize_row_*_ref in ggml/src/ggml-quants.c: what ggml_quantize_chunk runs without an
// importance matrix, and what llama-quantize writes). Each function encodes x, which holds
// exactly out.size() * Block::kSize floats. They never allocate: the K-quants' search scratch
// lives on the stack.
//
// The weight encoders are scalar only: quantizing a model is a one-off, and the searches in
// the K-quant encoders are branchy float code where vectorizing would change the rounding.
// The two activation formats of the quantized matrix products (Q8_0, Q8_K) are encoded for
// every row of every product, so they also exist in simd:: with the scalar encoders' exact
// bits (kernels/simd/quantize_activations.cpp).
#pragma once

#include "kernels/quant_blocks.h"

#include <span>

namespace forge::kernels::scalar {

void quantize(std::span<const float> x, std::span<BlockQ4_0> out) noexcept;
void quantize(std::span<const float> x, std::span<BlockQ4_1> out) noexcept;
void quantize(std::span<const float> x, std::span<BlockQ5_0> out) noexcept;
void quantize(std::span<const float> x, std::span<BlockQ5_1> out) noexcept;
void quantize(std::span<const float> x, std::span<BlockQ8_0> out) noexcept;
void quantize(std::span<const float> x, std::span<BlockQ2_K> out) noexcept;
void quantize(std::span<const float> x, std::span<BlockQ3_K> out) noexcept;
void quantize(std::span<const float> x, std::span<BlockQ4_K> out) noexcept;
void quantize(std::span<const float> x, std::span<BlockQ5_K> out) noexcept;
void quantize(std::span<const float> x, std::span<BlockQ6_K> out) noexcept;
void quantize(std::span<const float> x, std::span<BlockQ8_K> out) noexcept;
void quantize(std::span<const float> x, std::span<BlockTQ1_0> out) noexcept;
void quantize(std::span<const float> x, std::span<BlockTQ2_0> out) noexcept;

}  // namespace forge::kernels::scalar

namespace forge::kernels::simd {

void quantize(std::span<const float> x, std::span<BlockQ8_0> out) noexcept;
void quantize(std::span<const float> x, std::span<BlockQ8_K> out) noexcept;

}  // namespace forge::kernels::simd
