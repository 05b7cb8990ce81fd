// The GEMM over interleaved Q4_0 weights (kernels/quant_gemm_interleaved.h) on AVX2 + FMA +
// F16C without VNNI: simd::gemm for Q4_0 on machines without AVX-512 VNNI, over the same
// layout. kernels/meson.build compiles it beside the AVX2 K-quant kernel, with AVX-512 and
// AVX-VNNI switched off, so on an AVX-512 machine it is still the plain AVX2 code and the tests
// run it against the scalar dot and the AVX-512 kernel.
//
// A ymm holds half a group: the four-byte lanes of rows 8h..8h+7 (bytes 32h.. of each 64-byte
// quad). Without vpdpbusd the byte products come from vpmaddubsw (the unsigned codes 0..15 x
// the signed activation bytes, pairs summed into int16); all 8 operands of a block fit in
// int16 (|8 · 2 · 15 · 128| = 30720), so one vpmaddwd against ones makes the int32 sum, started
// from the block's correction -8 Σa as in the AVX-512 kernel. The integer sum of every output
// is that kernel's and the float steps are the same operations in the same order, so both
// give the same bits (the tests check it). Q8_0 (codes up to 255) stays on the dot kernels here.
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
constexpr std::size_t kAhead = 2048;  // decode's prefetch distance, as the AVX-512 kernel's

// Half h of a block's 8 operands: quad t's low nibbles are elements 4t..4t+3 (operand t), its
// high nibbles elements 16+4t.. (operand t+4).
void load_operands(const std::byte* quads, int h, __m256i (&w)[kOperands]) {
    const __m256i low_nibble = _mm256_set1_epi8(0x0F);
    for (int t = 0; t < kOperands / 2; ++t) {
        const __m256i q = _mm256_load_si256(reinterpret_cast<const __m256i*>(quads + t * kQuadBytes + 32 * h));
        w[t] = _mm256_and_si256(q, low_nibble);
        w[t + kOperands / 2] = _mm256_and_si256(_mm256_srli_epi16(q, 4), low_nibble);
    }
}

// The block's exact integer dot product for the 8 rows of w, against activation quants a.
__m256i block_sum(const __m256i (&w)[kOperands], const std::int8_t* a, std::int32_t correction) {
    __m256i pairs = _mm256_maddubs_epi16(w[0], _mm256_set1_epi32(static_cast<int>(load_u32(a))));
    for (int i = 1; i < kOperands; ++i) {
        pairs = _mm256_add_epi16(pairs, _mm256_maddubs_epi16(w[i], _mm256_set1_epi32(static_cast<int>(load_u32(a + 4 * i)))));
    }
    return _mm256_add_epi32(_mm256_set1_epi32(correction), _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
}

// Outputs j < live of one group for activation rows r0..r0+R-1. `stream`: prefetch ahead.
template <int R>
void tile(const InterleavedGemm<BlockQ4_0>& g, const std::byte* group, std::int64_t r0, int live, bool stream) {
    constexpr std::size_t quant_bytes = interleaved_quant_bytes<BlockQ4_0>();
    const auto* scales = reinterpret_cast<const f16_bits*>(group + static_cast<std::size_t>(g.blocks) * quant_bytes);
    __m256 acc[kHalves][R];
    for (auto& half : acc) {
        for (auto& v : half) v = _mm256_setzero_ps();
    }
    for (std::int64_t b = 0; b < g.blocks; ++b) {
        const std::byte* quants = group + static_cast<std::size_t>(b) * quant_bytes;
        if (stream) {
            for (std::size_t line = 0; line < quant_bytes; line += 64) {
                _mm_prefetch(reinterpret_cast<const char*>(quants) + kAhead + line, _MM_HINT_T0);
            }
            _mm_prefetch(reinterpret_cast<const char*>(scales + b * kInterleave) + 256, _MM_HINT_T0);
        }
        for (int h = 0; h < kHalves; ++h) {
            __m256i w[kOperands];
            load_operands(quants, h, w);
            const __m256 w_scale = _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(scales + b * kInterleave + 8 * h)));
            for (int r = 0; r < R; ++r) {
                const std::int64_t at = (r0 + r) * g.a_stride + b;
                const __m256i sum = block_sum(w, g.a[at].qs.data(), g.a_info[at].correction);
                const __m256 scale = _mm256_mul_ps(w_scale, _mm256_set1_ps(g.a_info[at].d));
                acc[h][r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum), scale, acc[h][r]);
            }
        }
    }
    for (int h = 0; h < kHalves; ++h) {
        const int lanes = std::clamp(live - 8 * h, 0, 8);
        for (int r = 0; r < R; ++r) lanes256::store_first(g.y + (r0 + r) * g.y_stride + 8 * h, lanes, acc[h][r]);
    }
}

}  // namespace

void gemm(const InterleavedGemm<BlockQ4_0>& g) noexcept {
    const std::size_t group_bytes = interleaved_group_bytes<BlockQ4_0>(g.blocks);
    const bool stream = g.rows <= kInterleavedTileRows;
    for (std::int64_t c0 = 0; c0 < g.cols; c0 += kInterleave) {
        const std::byte* group = g.w + static_cast<std::size_t>(c0 / kInterleave) * group_bytes;
        const int live = static_cast<int>(std::min<std::int64_t>(kInterleave, g.cols - c0));
        const InterleavedGemm<BlockQ4_0> at{g.rows, g.cols, g.blocks, g.a, g.a_info, g.a_stride, g.w, g.y + c0, g.y_stride};
        std::int64_t r0 = 0;
        for (; r0 + kTileRows <= g.rows; r0 += kTileRows) tile<kTileRows>(at, group, r0, live, stream);
        if (r0 < g.rows) tile<1>(at, group, r0, live, stream);
    }
}

}  // namespace forge::kernels::simd::avx2

#endif
