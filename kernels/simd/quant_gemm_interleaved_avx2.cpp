// The GEMM over interleaved Q4_0, Q5_0, Q5_1 and MXFP4 weights (kernels/quant_gemm_interleaved.h)
// on AVX2 + FMA + F16C without VNNI: simd::gemm for them on machines without AVX-512 VNNI, over
// the same layout. kernels/meson.build compiles it beside the AVX2 K-quant kernel, with AVX-512 and
// AVX-VNNI switched off, so on an AVX-512 machine it is still the plain AVX2 code and the tests
// run it against the scalar dot and the AVX-512 kernel.
//
// A ymm holds half a group: the four-byte lanes of rows 8h..8h+7 (bytes 32h.. of each 64-byte
// quad). Without vpdpbusd the byte products come from vpmaddubsw (the unsigned codes 0..15 x
// the signed activation bytes, pairs summed into int16); all 8 operands of a block fit in
// int16 (|8 · 2 · 15 · 128| = 30720), so one vpmaddwd against ones makes the int32 sum, started
// from the block's correction -8 Σa as in the AVX-512 kernel. MXFP4's looked-up levels reach
// 24 (|4 · 2 · 24 · 128| = 24576 for four operands), so its operands are summed four at a time
// in int16, each run widened with its own vpmaddwd; so are Q5_0's and Q5_1's codes up to 31
// (|4 · 2 · 31 · 128| = 31744). The integer sum of every output is the
// AVX-512 kernel's and the float steps are the same operations in the same order, so both give
// the same bits (the tests check it). Q8_0 (codes up to 255) stays on the dot kernels here.
#include "kernels/quant_gemm_interleaved.h"

#if defined(FORGE_INTERLEAVED_AVX2)

#include "kernels/simd/quant_lanes_avx2.h"  // <immintrin.h>, its false warnings silenced

#include <algorithm>

namespace forge::kernels::simd::avx2 {

namespace {

constexpr int kHalves = 2;       // a group's 16 rows as two ymm of 8
constexpr int kOperands = 8;     // operand i meets activation bytes 4i..4i+3
constexpr int kQuadBytes = 64;
constexpr int kTileRows = 2;     // activation rows per register tile (16 ymm registers)
constexpr std::size_t kAhead = 2048;  // decode's prefetch distance (T0)

// Half h of a block's 8 operands: quad t's low nibbles are elements 4t..4t+3 (operand t), its
// high nibbles elements 16+4t.. (operand t+4).
void load_nibbles(const std::byte* quads, int h, __m256i (&w)[kOperands]) {
    const __m256i low_nibble = _mm256_set1_epi8(0x0F);
    for (int t = 0; t < kOperands / 2; ++t) {
        const __m256i q = _mm256_load_si256(reinterpret_cast<const __m256i*>(quads + t * kQuadBytes + 32 * h));
        w[t] = _mm256_and_si256(q, low_nibble);
        w[t + kOperands / 2] = _mm256_and_si256(_mm256_srli_epi16(q, 4), low_nibble);
    }
}

// Rows 8h..8h+7 of 16 f16 scales as f32.
__m256 half_scales(const std::byte* s, int h) {
    return _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(s + 16 * h)));
}

// The int32 lanes x scale, rounded, as scalar::dot forms a block's term (MXFP4, Q5_0, Q5_1).
__m256 scaled(__m256i sum, __m256 scale) { return _mm256_mul_ps(_mm256_cvtepi32_ps(sum), scale); }

// Per format: half a block's operands, the 8 rows' weight scales of that half (of the block's
// scale area s), the float step, and how many operands' byte products int16 holds.
struct Q4_0Format {
    using Block = BlockQ4_0;
    static constexpr int kRun = kOperands;
    static void load(const std::byte* quads, int h, __m256i (&w)[kOperands]) { load_nibbles(quads, h, w); }
    static __m256 scales(const std::byte* s, int h) { return half_scales(s, h); }
    static __m256 step(__m256 acc, __m256i sum, __m256 scale) { return _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum), scale, acc); }
};

// Q5_0 and Q5_1 as the AVX-512 kernel's Q5Operands: operand i's fifth bits from bit i of the
// run's bytes to bit 4, a multiply then an add (Q5_1: with its min term).
template <typename Q5Block>
struct Q5Format {
    using Block = Q5Block;
    static constexpr int kRun = kOperands / 2;
    static void load(const std::byte* quads, int h, __m256i (&w)[kOperands]) {
        load_nibbles(quads, h, w);
        const __m256i run = _mm256_load_si256(reinterpret_cast<const __m256i*>(quads + kOperands / 2 * kQuadBytes + 32 * h));
        const __m256i bit_4 = _mm256_set1_epi8(0x10);
        for (int i = 0; i < kOperands; ++i) {
            const __m256i moved = i < 4 ? _mm256_slli_epi16(run, 4 - i) : _mm256_srli_epi16(run, i - 4);
            w[i] = _mm256_or_si256(w[i], _mm256_and_si256(moved, bit_4));
        }
    }
    static __m256 scales(const std::byte* s, int h) { return half_scales(s, h); }
    static __m256 mins(const std::byte* s, int h) { return half_scales(s + 2 * kInterleave, h); }
    static __m256 step(__m256 acc, __m256i sum, __m256 scale) { return _mm256_add_ps(acc, scaled(sum, scale)); }
    static __m256 step(__m256 acc, __m256i sum, __m256 scale, __m256 min_scale, float a_sum) {
        return _mm256_add_ps(acc, _mm256_add_ps(scaled(sum, scale), _mm256_mul_ps(_mm256_set1_ps(a_sum), min_scale)));
    }
};

// MXFP4 as the AVX-512 kernel's Mxfp4Operands: levels by vpshufb, 2^(e - 128) from the
// exponent bytes, a multiply then an add.
struct Mxfp4Format {
    using Block = BlockMXFP4;
    static constexpr int kRun = kOperands / 2;
    static void load(const std::byte* quads, int h, __m256i (&w)[kOperands]) {
        const __m256i levels = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(kMxfp4InterleavedLevels.data())));
        load_nibbles(quads, h, w);
        for (auto& v : w) v = _mm256_shuffle_epi8(levels, v);
    }
    static __m256 scales(const std::byte* s, int h) {
        const __m256i e = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s + 8 * h)));
        const __m256i normal = _mm256_slli_epi32(_mm256_sub_epi32(e, _mm256_set1_epi32(1)), 23);
        const __m256i subnormal = _mm256_sllv_epi32(_mm256_set1_epi32(0x00200000), e);
        return _mm256_castsi256_ps(_mm256_blendv_epi8(normal, subnormal, _mm256_cmpgt_epi32(_mm256_set1_epi32(2), e)));
    }
    static __m256 step(__m256 acc, __m256i sum, __m256 scale) { return _mm256_add_ps(acc, scaled(sum, scale)); }
};

// The block's exact integer dot product for the 8 rows of w, against activation quants a:
// runs of kRun operands summed in int16, each widened to int32 by one vpmaddwd.
template <int kRun>
__m256i block_sum(const __m256i (&w)[kOperands], const std::int8_t* a, std::int32_t correction) {
    __m256i sum = _mm256_set1_epi32(correction);
    for (int first = 0; first < kOperands; first += kRun) {
        __m256i pairs = _mm256_maddubs_epi16(w[first], _mm256_set1_epi32(static_cast<int>(load_u32(a + 4 * first))));
        for (int i = first + 1; i < first + kRun; ++i) {
            pairs = _mm256_add_epi16(pairs, _mm256_maddubs_epi16(w[i], _mm256_set1_epi32(static_cast<int>(load_u32(a + 4 * i)))));
        }
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
    }
    return sum;
}

// Outputs j < live of one group for activation rows r0..r0+R-1. `stream`: prefetch ahead.
template <typename Format, int R>
void tile(const InterleavedGemm<typename Format::Block>& g, const std::byte* group, std::int64_t r0, int live, bool stream) {
    using Block = typename Format::Block;
    __m256 acc[kHalves][R];
    for (auto& half : acc) {
        for (auto& v : half) v = _mm256_setzero_ps();
    }
    for (std::int64_t b = 0; b < g.blocks; ++b) {
        const std::byte* quants = group + interleaved_quants_offset<Block>(b);
        const std::byte* block_scales = group + interleaved_scales_offset<Block>(b);
        if (stream) {
            for (std::size_t line = 0; line < interleaved_quant_bytes<Block>(); line += 64) {
                _mm_prefetch(reinterpret_cast<const char*>(quants) + kAhead + line, _MM_HINT_T0);
            }
            _mm_prefetch(reinterpret_cast<const char*>(block_scales) + kAhead, _MM_HINT_T0);
        }
        for (int h = 0; h < kHalves; ++h) {
            __m256i w[kOperands];
            Format::load(quants, h, w);
            const __m256 w_scale = Format::scales(block_scales, h);
            __m256 w_min = _mm256_setzero_ps();
            if constexpr (kHasMin<Block>) w_min = Format::mins(block_scales, h);
            for (int r = 0; r < R; ++r) {
                const std::int64_t at = (r0 + r) * g.a_stride + b;
                const ActivationBlockInfo& info = g.a_info[at];
                const __m256i sum = block_sum<Format::kRun>(w, g.a[at].qs.data(), info.correction);
                const __m256 a_scale = _mm256_set1_ps(info.d);
                const __m256 scale = _mm256_mul_ps(w_scale, a_scale);
                if constexpr (kHasMin<Block>) acc[h][r] = Format::step(acc[h][r], sum, scale, _mm256_mul_ps(w_min, a_scale), info.sum);
                else acc[h][r] = Format::step(acc[h][r], sum, scale);
            }
        }
    }
    for (int h = 0; h < kHalves; ++h) {
        const int lanes = std::clamp(live - 8 * h, 0, 8);
        for (int r = 0; r < R; ++r) lanes256::store_first(g.y + (r0 + r) * g.y_stride + 8 * h, lanes, acc[h][r]);
    }
}

template <typename Format>
void gemm_groups(const InterleavedGemm<typename Format::Block>& g) {
    const std::size_t group_bytes = interleaved_group_bytes<typename Format::Block>(g.blocks);
    const bool stream = g.rows <= kInterleavedTileRows;
    for (std::int64_t c0 = 0; c0 < g.cols; c0 += kInterleave) {
        const std::byte* group = g.w + static_cast<std::size_t>(c0 / kInterleave) * group_bytes;
        const int live = static_cast<int>(std::min<std::int64_t>(kInterleave, g.cols - c0));
        const InterleavedGemm<typename Format::Block> at{g.rows, g.cols, g.blocks, g.a, g.a_info, g.a_stride, g.w, g.y + c0, g.y_stride};
        std::int64_t r0 = 0;
        for (; r0 + kTileRows <= g.rows; r0 += kTileRows) tile<Format, kTileRows>(at, group, r0, live, stream);
        if (r0 < g.rows) tile<Format, 1>(at, group, r0, live, stream);
    }
}

}  // namespace

void gemm(const InterleavedGemm<BlockQ4_0>& g) noexcept { gemm_groups<Q4_0Format>(g); }
void gemm(const InterleavedGemm<BlockQ5_0>& g) noexcept { gemm_groups<Q5Format<BlockQ5_0>>(g); }
void gemm(const InterleavedGemm<BlockQ5_1>& g) noexcept { gemm_groups<Q5Format<BlockQ5_1>>(g); }
void gemm(const InterleavedGemm<BlockMXFP4>& g) noexcept { gemm_groups<Mxfp4Format>(g); }

}  // namespace forge::kernels::simd::avx2

#endif
