// Quantized matrix multiplication, the prefill case of the quantized linear layer: a block
// of outputs y[r][c] = dot(weight row c, activation row r) over several activation rows at
// once (kernels/quant_dot.h defines dot and its arithmetic contract).
//
// Taking many rows at a time is what makes prefill fast: a register tile of activation rows
// x weight rows unpacks each weight block once for all rows of the tile and keeps every
// output's accumulator in a register, so the work per block is mostly multiply-adds rather
// than loads and unpacking (the idea of llamafile's tinyBLAS and ggml's repacked GEMMs).
//
// The specification (scalar) is literally a loop over scalar::dot. The simd GEMM gives each
// output exactly the bits of simd::dot for the same row pair, so prefill and decode agree
// and the result does not depend on how the outputs are cut into tiles or threads.
#pragma once

#include "kernels/quant_blocks.h"

#include <cstdint>
#include <span>

namespace forge::kernels {

// y[r * y_stride + c] = dot(w row c, a row r) for r < rows, c < cols; every row holds
// `blocks` weight blocks (and the activation blocks covering the same elements). Strides
// count blocks (w, a) or floats (y).
template <typename Block, typename Act>
struct QuantGemm {
    std::int64_t rows, cols, blocks;
    const Act* a;
    std::int64_t a_stride;
    const Block* w;
    std::int64_t w_stride;
    float* y;
    std::int64_t y_stride;
};

// One dot product per output: the specification's loop, and the simd fallback where the
// build has no tiled kernel.
template <typename Block, typename Act, typename Dot>
void gemm_by_dots(const QuantGemm<Block, Act>& g, Dot dot) {
    const auto blocks = static_cast<std::size_t>(g.blocks);
    for (std::int64_t r = 0; r < g.rows; ++r) {
        const std::span<const Act> act(g.a + r * g.a_stride, blocks);
        for (std::int64_t c = 0; c < g.cols; ++c) {
            g.y[r * g.y_stride + c] = dot(std::span<const Block>(g.w + c * g.w_stride, blocks), act);
        }
    }
}

using QuantGemmQ4_0 = QuantGemm<BlockQ4_0, BlockQ8_0>;
using QuantGemmQ8_0 = QuantGemm<BlockQ8_0, BlockQ8_0>;

namespace scalar {
void gemm(const QuantGemmQ4_0& g) noexcept;
void gemm(const QuantGemmQ8_0& g) noexcept;
}  // namespace scalar

namespace simd {
void gemm(const QuantGemmQ4_0& g) noexcept;
void gemm(const QuantGemmQ8_0& g) noexcept;
}  // namespace simd

}  // namespace forge::kernels
