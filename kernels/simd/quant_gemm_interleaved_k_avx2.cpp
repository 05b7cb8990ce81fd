// The GEMM over interleaved Q4_K / Q5_K / Q6_K weights (kernels/quant_gemm_interleaved_k.h) on
// AVX2 + FMA + F16C without VNNI: the kernel of machines without AVX-512 (simd::gemm calls it
// there), built from the same layout. kernels/meson.build compiles this file on its own with
// AVX-512 and AVX-VNNI switched off, so on an AVX-512 machine it is still the plain AVX2 code
// and the tests run it against the scalar dot and the AVX-512 kernel.
//
// A ymm holds half a group: the four-byte lanes of rows 8h..8h+7 (bytes 32h.. of each 64-byte
// quad). Without vpdpbusd the byte products come from vpmaddubsw (unsigned codes x signed
// activation bytes, pairs summed into int16), and the int16 partial sums of several operands
// are added before one vpmaddwd multiplies them by the sub-block scale (both words of a lane
// hold the scale, so it adds scale · (low word + high word) to the row's int32 sum). How many
// operands fit in int16 depends on the largest code: |2 · code · 128| per operand, so Q4_K
// (codes <= 15) sums a whole slice (8 · 3840 = 30720), Q5_K (<= 31) half a slice (4 · 7936 =
// 31744), Q6_K (<= 63) two operands (2 · 16128 = 32256), never the 32768 that would wrap.
// Q6_K's bias of 32 is one term per super-block, -32 Σ_j scale_j Σa_j, from Q8_K's bsums.
// The integer sum of every output is the AVX-512 kernel's, and the float steps are the same
// operations in the same order, so both kernels give the same bits (the tests check it).
#include "kernels/quant_gemm_interleaved_k.h"

#if defined(FORGE_INTERLEAVED_AVX2)

#include "kernels/simd/quant_interleaved_k_layout.h"

#include "kernels/simd/quant_lanes_avx2.h"  // <immintrin.h>, its false warnings silenced

#include <algorithm>
#include <type_traits>
#include <utility>

namespace forge::kernels::simd::avx2 {

namespace {

using interleaved_k::high_run;
using interleaved_k::high_shift;
using interleaved_k::kD;
using interleaved_k::kHighBits;
using interleaved_k::kMins;
using interleaved_k::kQuadBytes;
using interleaved_k::kScales;
using interleaved_k::kSliceBytes;
using interleaved_k::kSlices;

constexpr int kHalves = 2;      // a group's 16 rows as two ymm of 8
constexpr int kOperands = 8;    // quant lanes of a slice: operand i meets activation bytes 4i..4i+3
constexpr int kPrefillRows = 4; // activation rows per register tile (16 ymm registers)

// Operands summed in int16 before one vpmaddwd (see the top), and so sharing one scale.
template <typename Block>
constexpr int kInt16Run = kHighBits<Block> == 2 ? 2 : kHighBits<Block> == 1 ? 4 : 8;

// ---- operands --------------------------------------------------------------------------------

__m256i load(const std::byte* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }

// Operand I of slice s, half h: the nibble (low for I < 4, high above), then (Q5_K, Q6_K) the
// bits above it from their run, moved to bit 4 up. The 16-bit shifts carry bits across bytes
// only into places the masks clear.
template <typename Block, int I>
__m256i operand(const std::byte* sb, int s, int h) {
    const __m256i low_nibble = _mm256_set1_epi8(0x0F);
    const __m256i quad = load(sb + kSliceBytes * s + kQuadBytes * (I % 4) + 32 * h);
    __m256i w = _mm256_and_si256(I < 4 ? quad : _mm256_srli_epi16(quad, 4), low_nibble);
    if constexpr (kHighBits<Block> > 0) {
        // Q5_K: operand I's fifth bits at bit I of each byte of the slice's run; Q6_K: at bits
        // 2m, 2m+1 (m = I % 4) of run I / 4.
        constexpr int at = high_shift<Block>(I);
        const __m256i bits = load(sb + high_run<Block>(s, I) + 32 * h);
        __m256i moved = bits;
        if constexpr (at < 4) moved = _mm256_slli_epi16(bits, 4 - at);
        if constexpr (at > 4) moved = _mm256_srli_epi16(bits, at - 4);
        const __m256i mask = _mm256_set1_epi8(static_cast<char>(((1 << kHighBits<Block>) - 1) << 4));
        w = _mm256_or_si256(w, _mm256_and_si256(moved, mask));
    }
    return w;
}

// Dword scales (sign- or zero-extended) with the scale copied into both words.
__m256i both_words(__m256i dwords) { return _mm256_blend_epi16(dwords, _mm256_slli_epi32(dwords, 16), 0xAA); }

// The scale of the sub-block operand I of slice s belongs to, rows of half h, in both words.
template <typename Block, int I>
__m256i sub_block_scale(const std::byte* sb, int s, int h) {
    if constexpr (std::is_same_v<Block, BlockQ6_K>) {
        const auto* at = sb + kScales<Block> + 16 * static_cast<std::size_t>(2 * s + I / 4) + 8 * static_cast<std::size_t>(h);
        return both_words(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(at))));
    } else {
        const auto* at = sb + kScales<Block> + 16 * static_cast<std::size_t>(s) + 8 * static_cast<std::size_t>(h);
        return both_words(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(at))));
    }
}

// ---- the register tile: halves h0..h0+H-1 x activation rows a[0..R) ---------------------------

// Left alone, GCC 12 computes all of a run's products for all rows before adding any (the adds
// are independent of each other), which needs far more than AVX2's 16 registers and spilled
// every product to the stack (prefill ran at about a third of this speed, as a ratio to the
// AVX-512 kernel in the same run). An empty asm that claims to change the partial sum keeps
// each add right after its product.
void in_order(__m256i& sum) { asm("" : "+x"(sum)); }

template <int H, int R>
using IntLanes = __m256i[H][R];

// Operands I..I+kInt16Run-1 of slice s: their byte products summed in int16 per lane, then
// times the sub-block scale into every row's int32 sum.
template <typename Block, int H, int R, int I>
void add_run(const std::byte* sb, int s, int h0, const BlockQ8_K* const (&a)[R], IntLanes<H, R>& isum) {
    __m256i partial[H][R];
    for (auto& half : partial) {
        for (auto& v : half) v = _mm256_setzero_si256();
    }
    [&]<int... K>(std::integer_sequence<int, K...>) {
        (
            [&] {
                for (int h = 0; h < H; ++h) {
                    const __m256i w = operand<Block, I + K>(sb, s, h0 + h);
                    for (int r = 0; r < R; ++r) {
                        const auto bytes = static_cast<int>(load_u32(a[r]->qs.data() + 32 * s + 4 * (I + K)));
                        partial[h][r] = _mm256_add_epi16(partial[h][r], _mm256_maddubs_epi16(w, _mm256_set1_epi32(bytes)));
                        in_order(partial[h][r]);
                    }
                }
            }(),
            ...);
    }(std::make_integer_sequence<int, kInt16Run<Block>>{});
    for (int h = 0; h < H; ++h) {
        const __m256i scale = sub_block_scale<Block, I>(sb, s, h0 + h);
        for (int r = 0; r < R; ++r) isum[h][r] = _mm256_add_epi32(isum[h][r], _mm256_madd_epi16(partial[h][r], scale));
    }
}

template <typename Block, int H, int R>
void add_slice(const std::byte* sb, int s, int h0, const BlockQ8_K* const (&a)[R], IntLanes<H, R>& isum) {
    [&]<int... Run>(std::integer_sequence<int, Run...>) {
        (add_run<Block, H, R, Run * kInt16Run<Block>>(sb, s, h0, a, isum), ...);
    }(std::make_integer_sequence<int, kOperands / kInt16Run<Block>>{});
}

// Σ_p madd(pairs[h][p], the dword of words (v_2p, v_2p+1) of row r): for Q6_K the bias term
// Σ_j scale_j Σa_j, for Q4_K / Q5_K the min term Σ_j min_j Σa_j. `words(r)` points at row r's
// eight dwords of activation word pairs.
template <int H, int R, int P, typename Words>
void pair_sums(const __m256i (&pairs)[H][P], Words words, IntLanes<H, R>& out) {
    for (int h = 0; h < H; ++h) {
        for (int r = 0; r < R; ++r) out[h][r] = _mm256_setzero_si256();
    }
    for (int p = 0; p < P; ++p) {
        for (int r = 0; r < R; ++r) {
            const __m256i w = _mm256_set1_epi32(static_cast<int>(load_u32(words(r) + 2 * p)));
            for (int h = 0; h < H; ++h) out[h][r] = _mm256_add_epi32(out[h][r], _mm256_madd_epi16(pairs[h][p], w));
        }
    }
}

// Q6_K: every row's sum starts at -32 Σ_j scale_j Σa_j (Σa_j = bsums[j], 16 elements).
template <int H, int R>
void start_q6_bias(const std::byte* sb, int h0, const BlockQ8_K* const (&a)[R], IntLanes<H, R>& isum) {
    __m256i scale_pairs[H][8];  // words (scale_2p, scale_2p+1) of each row
    for (int h = 0; h < H; ++h) {
        for (int p = 0; p < 8; ++p) {
            const auto* at = sb + kScales<BlockQ6_K> + 32 * static_cast<std::size_t>(p) + 8 * static_cast<std::size_t>(h0 + h);
            const __m128i even = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(at));
            const __m128i odd = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(at + 16));
            scale_pairs[h][p] = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(even, odd));
        }
    }
    pair_sums<H, R>(scale_pairs, [&](int r) { return a[r]->bsums.data(); }, isum);
    for (auto& half : isum) {
        for (auto& v : half) v = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(v, 5));
    }
}

// Q4_K / Q5_K: Σ_j min_j Σa_j for every row (Σa_j = bsums 2j + 2j+1, within int16).
template <typename Block, int H, int R>
void min_sums(const std::byte* sb, int h0, const BlockQ8_K* const (&a)[R], IntLanes<H, R>& imin) {
    __m256i min_pairs[H][4];  // words (min_2p, min_2p+1) of each row
    for (int h = 0; h < H; ++h) {
        for (int p = 0; p < 4; ++p) {
            const auto* at = sb + kMins<Block> + 32 * static_cast<std::size_t>(p) + 16 * static_cast<std::size_t>(h0 + h);
            min_pairs[h][p] = _mm256_cvtepu8_epi16(_mm_load_si128(reinterpret_cast<const __m128i*>(at)));
        }
    }
    alignas(16) std::int16_t sums[R][8];
    for (int r = 0; r < R; ++r) {
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a[r]->bsums.data()));
        const __m256i pairs = _mm256_madd_epi16(b, _mm256_set1_epi16(1));
        _mm_store_si128(reinterpret_cast<__m128i*>(sums[r]),
                        _mm_packs_epi32(_mm256_castsi256_si128(pairs), _mm256_extracti128_si256(pairs, 1)));
    }
    pair_sums<H, R>(min_pairs, [&](int r) { return sums[r]; }, imin);
}

// The super-block's float terms, the AVX-512 kernel's steps: d·da·isum, then -dmin·da·imin.
template <typename Block, int H, int R>
void add_float_terms(const std::byte* sb, int h0, const BlockQ8_K* const (&a)[R], const IntLanes<H, R>& isum,
                     __m256 (&acc)[H][R]) {
    IntLanes<H, R> imin;
    if constexpr (!std::is_same_v<Block, BlockQ6_K>) min_sums<Block, H, R>(sb, h0, a, imin);
    for (int h = 0; h < H; ++h) {
        const auto* d_at = reinterpret_cast<const __m128i*>(sb + kD<Block> + 16 * static_cast<std::size_t>(h0 + h));
        const __m256 d = _mm256_cvtph_ps(_mm_load_si128(d_at));
        for (int r = 0; r < R; ++r) {
            const __m256 da = _mm256_set1_ps(a[r]->d);
            acc[h][r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[h][r]), _mm256_mul_ps(d, da), acc[h][r]);
        }
        if constexpr (!std::is_same_v<Block, BlockQ6_K>) {
            const __m256 dmin = _mm256_cvtph_ps(_mm_load_si128(d_at + 2));
            for (int r = 0; r < R; ++r) {
                const __m256 da = _mm256_set1_ps(a[r]->d);
                acc[h][r] = _mm256_fnmadd_ps(_mm256_cvtepi32_ps(imin[h][r]), _mm256_mul_ps(dmin, da), acc[h][r]);
            }
        }
    }
}

// Decoding streams the weights once from memory: ask for them a few super-blocks ahead.
constexpr std::size_t kAhead = 4096;

template <typename Block>
void prefetch_ahead(const std::byte* sb) {
    for (std::size_t line = 0; line < interleaved_k_superblock_bytes<Block>(); line += 64) {
        _mm_prefetch(reinterpret_cast<const char*>(sb) + kAhead + line, _MM_HINT_T0);
    }
}

// Where a tile writes: activation row r0 on, the group's columns from c0, `live` of them.
struct TileOutput {
    std::int64_t r0, c0;
    int live;
    bool stream;  // prefetch ahead
};

// Outputs of halves h0..h0+H-1 of one group for activation rows r0..r0+R-1.
template <typename Block, int H, int R>
void tile(const InterleavedGemm<Block>& g, const std::byte* group, int h0, const TileOutput& out) {
    constexpr std::size_t sb_bytes = interleaved_k_superblock_bytes<Block>();
    __m256 acc[H][R];
    for (auto& half : acc) {
        for (auto& v : half) v = _mm256_setzero_ps();
    }
    for (std::int64_t b = 0; b < g.blocks; ++b) {
        const std::byte* sb = group + static_cast<std::size_t>(b) * sb_bytes;
        if (out.stream) prefetch_ahead<Block>(sb);
        const BlockQ8_K* a[R];
        for (int r = 0; r < R; ++r) a[r] = g.a + (out.r0 + r) * g.a_stride + b;
        IntLanes<H, R> isum;
        if constexpr (std::is_same_v<Block, BlockQ6_K>) {
            start_q6_bias<H, R>(sb, h0, a, isum);
        } else {
            for (auto& half : isum) {
                for (auto& v : half) v = _mm256_setzero_si256();
            }
        }
        for (int s = 0; s < kSlices; ++s) add_slice<Block, H, R>(sb, s, h0, a, isum);
        add_float_terms<Block, H, R>(sb, h0, a, isum, acc);
    }
    for (int h = 0; h < H; ++h) {
        const int live = std::clamp(out.live - 8 * (h0 + h), 0, 8);
        for (int r = 0; r < R; ++r) lanes256::store_first(g.y + (out.r0 + r) * g.y_stride + out.c0 + 8 * (h0 + h), live, acc[h][r]);
    }
}

// The tile for the last rows (fewer than kPrefillRows), by template dispatch.
template <typename Block, int R>
void edge_tile(const InterleavedGemm<Block>& g, const std::byte* group, int h, int rows, const TileOutput& out) {
    if constexpr (R > 1) {
        if (rows < R) return edge_tile<Block, R - 1>(g, group, h, rows, out);
    }
    tile<Block, 1, R>(g, group, h, out);
}

// Groups outside, activation tiles inside. One activation row (decoding) takes both halves
// at once, so each super-block's cache lines are read once, front to back; more rows take
// tiles of one half x kPrefillRows rows (the group stays in cache for the second half).
template <typename Block>
void gemm_groups(const InterleavedGemm<Block>& g) {
    const std::size_t group_bytes = interleaved_k_group_bytes<Block>(g.blocks);
    const bool stream = g.rows <= kInterleavedTileRows;
    for (std::int64_t c0 = 0; c0 < g.cols; c0 += kInterleave) {
        const std::byte* group = g.w + static_cast<std::size_t>(c0 / kInterleave) * group_bytes;
        const int live = static_cast<int>(std::min<std::int64_t>(kInterleave, g.cols - c0));
        if (g.rows == 1) {
            tile<Block, kHalves, 1>(g, group, 0, {0, c0, live, true});
            continue;
        }
        for (int h = 0; h < kHalves && 8 * h < live; ++h) {
            std::int64_t r0 = 0;
            for (; r0 + kPrefillRows <= g.rows; r0 += kPrefillRows) {
                tile<Block, 1, kPrefillRows>(g, group, h, {r0, c0, live, stream && h == 0});
            }
            if (r0 < g.rows) {
                edge_tile<Block, kPrefillRows - 1>(g, group, h, static_cast<int>(g.rows - r0), {r0, c0, live, stream && h == 0});
            }
        }
    }
}

}  // namespace

void gemm(const InterleavedGemm<BlockQ4_K>& g) noexcept { gemm_groups(g); }
void gemm(const InterleavedGemm<BlockQ5_K>& g) noexcept { gemm_groups(g); }
void gemm(const InterleavedGemm<BlockQ6_K>& g) noexcept { gemm_groups(g); }

}  // namespace forge::kernels::simd::avx2

#endif
