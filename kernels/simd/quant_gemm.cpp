// Quantized GEMM, simd backend: register tiles of activation rows x weight rows on AVX-512
// (VNNI where the build targets it). Per pair of blocks, each weight row of the tile is
// unpacked once and each activation row loaded once; every (row, row) pair then costs one
// integer dot product, a correction, a conversion and a multiply-add into its own f32
// accumulator — the steps of the dot kernel (quant_lanes.h), so each output has the dot's
// bits. Follows the structure of llamafile's tinyBLAS (Apache-2.0) and ggml's quantized
// GEMMs (MIT); see docs/THIRD-PARTY-NOTICES.md. Without AVX-512: one dot per output.
#include "kernels/quant_gemm.h"

#include "kernels/quant_dot.h"
#include "kernels/simd/quant_lanes.h"

#include <algorithm>

namespace forge::kernels::simd {

namespace {

#if defined(FORGE_QUANT_LANES_512)

// A weight format's part of the tile: how a pair (or the odd last block) of its blocks is
// unpacked, how an activation pair is prepared for it, and the exact int32 lanes of one
// (weight, activation) pair. kRows x kCols is the register tile.

// Q4_0: quants 0..15 against the activations, starting from -8 Σa (per activation row, once).
struct Q4_0Format {
    using Block = BlockQ4_0;
    static constexpr int kRows = 4, kCols = 4;
    using Weights = __m512i;
    struct Activations {
        __m512i quants, minus_eight_sums;
    };
    static Weights pair(const Block* b) { return lanes::unpack_nibble_pair(b[0].qs.data(), b[1].qs.data()); }
    static Weights single(const Block* b) { return lanes::unpack_nibble_single(b[0].qs.data()); }
    static Activations prepare(__m512i a) {
        return {a, _mm512_sub_epi32(_mm512_setzero_si512(), lanes::dot_groups(_mm512_set1_epi8(8), a))};
    }
    static __m512i dot(Weights w, const Activations& a) { return lanes::dot_groups_onto(a.minus_eight_sums, w, a.quants); }
};

// Q8_0: with VNNI, the activations shifted to unsigned (a + 128, one xor per row) against
// the signed weights, starting from -128 Σw (per weight row, once); without VNNI the sign trick of
// the dot kernel, whose 16-bit pair sums stay unsaturated.
struct Q8_0Format {
    using Block = BlockQ8_0;
    static constexpr int kRows = 4, kCols = 3;
#if defined(__AVX512VNNI__)
    struct Weights {
        __m512i quants, minus_sums128;
    };
    using Activations = __m512i;
    static Weights weights(__m512i w) {
        const __m512i sums128 = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_set1_epi8(-128), w);
        return {w, _mm512_sub_epi32(_mm512_setzero_si512(), sums128)};
    }
    static Activations prepare(__m512i a) { return _mm512_xor_si512(a, _mm512_set1_epi8(-128)); }
    static __m512i dot(const Weights& w, Activations a) { return _mm512_dpbusd_epi32(w.minus_sums128, a, w.quants); }
#else
    using Weights = __m512i;
    using Activations = __m512i;
    static Weights weights(__m512i w) { return w; }
    static Activations prepare(__m512i a) { return a; }
    static __m512i dot(Weights w, Activations a) { return lanes::q8_lanes(w, a); }
#endif
    static Weights pair(const Block* b) { return weights(lanes::load_pair(b[0].qs.data(), b[1].qs.data())); }
    static Weights single(const Block* b) { return weights(lanes::load_single(b[0].qs.data())); }
};

// One step of a tile: blocks i, i+1 (kPair) or block i alone, for all R x C outputs.
template <typename Format, int R, int C, bool kPair>
inline void tile_step(const QuantGemm<typename Format::Block, BlockQ8_0>& g, std::int64_t r0, std::int64_t c0,
                      std::int64_t i, __m512 (&acc)[R][C]) {
    using lanes::half;
    typename Format::Weights w[C];
    __m512 w_scale[C];
    for (int c = 0; c < C; ++c) {
        const auto* b = g.w + (c0 + c) * g.w_stride + i;
        w[c] = kPair ? Format::pair(b) : Format::single(b);
        w_scale[c] = lanes::scale_pair(half(b[0].d), kPair ? half(b[1].d) : 0.0f);
    }
    for (int r = 0; r < R; ++r) {
        const BlockQ8_0* x = g.a + (r0 + r) * g.a_stride + i;
        const auto a = Format::prepare(kPair ? lanes::load_pair(x[0].qs.data(), x[1].qs.data())
                                             : lanes::load_single(x[0].qs.data()));
        const __m512 a_scale = lanes::scale_pair(half(x[0].d), kPair ? half(x[1].d) : 0.0f);
        for (int c = 0; c < C; ++c) {
            acc[r][c] = lanes::accumulate(acc[r][c], Format::dot(w[c], a), _mm512_mul_ps(w_scale[c], a_scale));
        }
    }
}

template <typename Format, int R, int C>
void tile(const QuantGemm<typename Format::Block, BlockQ8_0>& g, std::int64_t r0, std::int64_t c0) {
    __m512 acc[R][C];
    for (auto& row : acc)
        for (auto& v : row) v = _mm512_setzero_ps();
    std::int64_t i = 0;
    for (; i + 1 < g.blocks; i += 2) tile_step<Format, R, C, true>(g, r0, c0, i, acc);
    if (i < g.blocks) tile_step<Format, R, C, false>(g, r0, c0, i, acc);
    for (int r = 0; r < R; ++r)
        for (int c = 0; c < C; ++c) g.y[(r0 + r) * g.y_stride + c0 + c] = lanes::sum_lanes(acc[r][c]);
}

// The tile for the rows and columns left (at most the format's tile), by template dispatch.
template <typename Format, int R, int C = Format::kCols>
void edge_tile(const QuantGemm<typename Format::Block, BlockQ8_0>& g, std::int64_t r0, std::int64_t c0, int rows,
               int cols) {
    if constexpr (R > 1) {
        if (rows < R) return edge_tile<Format, R - 1, C>(g, r0, c0, rows, cols);
    }
    if constexpr (C > 1) {
        if (cols < C) return edge_tile<Format, R, C - 1>(g, r0, c0, rows, cols);
    }
    tile<Format, R, C>(g, r0, c0);
}

// Weight tiles outside, activation tiles inside: a tile's weight rows stay in L1 while
// the activation rows stream past from L2.
template <typename Format>
void gemm_tiled(const QuantGemm<typename Format::Block, BlockQ8_0>& g) {
    constexpr int R = Format::kRows, C = Format::kCols;
    for (std::int64_t c0 = 0; c0 < g.cols; c0 += C) {
        const int cols = static_cast<int>(std::min<std::int64_t>(C, g.cols - c0));
        for (std::int64_t r0 = 0; r0 < g.rows; r0 += R) {
            const int rows = static_cast<int>(std::min<std::int64_t>(R, g.rows - r0));
            if (rows == R && cols == C) tile<Format, R, C>(g, r0, c0);
            else edge_tile<Format, R>(g, r0, c0, rows, cols);
        }
    }
}

#endif

}  // namespace

#if defined(FORGE_QUANT_LANES_512)
void gemm(const QuantGemmQ4_0& g) noexcept { gemm_tiled<Q4_0Format>(g); }
void gemm(const QuantGemmQ8_0& g) noexcept { gemm_tiled<Q8_0Format>(g); }
#else
void gemm(const QuantGemmQ4_0& g) noexcept { gemm_by_dots(g, [](auto w, auto a) { return dot(w, a); }); }
void gemm(const QuantGemmQ8_0& g) noexcept { gemm_by_dots(g, [](auto w, auto a) { return dot(w, a); }); }
#endif

}  // namespace forge::kernels::simd
