// The 256-bit building blocks shared by the quantized dot products (quant_dot.cpp for the
// 32-element and K formats, quant_dot_lowbit.cpp for the low-bit ones): byte products into
// int32 lanes, and the lane-wise float step of kernels/quant_dot.h — a block's int32 lanes,
// as f32, multiply-added with its scale product into an accumulator that is summed across
// lanes once per row.
#pragma once

#include "kernels/half.h"

#include <cstdint>

#if defined(__AVX2__) && defined(__FMA__)
#define FORGE_QUANT_LANES_AVX2 1
// g++ 12 reports a false "may be used uninitialized" inside AVX-512 intrinsics (their
// undefined pass-through operand); located in the header, so silenced only there.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

namespace forge::kernels::simd::lanes256 {

// An f16 scale as f32 with F16C (the same value as f16_to_f32, in one instruction).
inline float half(f16_bits h) { return _cvtsh_ss(h); }

inline __m256i load32(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }

// acc + Σ over each group of four of u[i] * s[i] (u unsigned, s signed bytes): eight int32
// lanes, lane k covering bytes 4k..4k+3. Without VNNI the 16-bit pair sums of vpmaddubsw
// must not saturate: callers keep |u| and |s| ≤ 128 (VNNI has no such limit).
inline __m256i dot_groups_onto(__m256i acc, __m256i u, __m256i s) {
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
    return _mm256_dpbusd_epi32(acc, u, s);
#else
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1)));
#endif
}

inline __m256i dot_groups(__m256i u, __m256i s) { return dot_groups_onto(_mm256_setzero_si256(), u, s); }

// 16 bytes of 4-bit values as 32 bytes: low nibbles first (elements 0..15), then high (16..31).
inline __m256i unpack_nibbles_16(const std::uint8_t* qs) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(qs));
    const __m128i mask = _mm_set1_epi8(0x0F);
    return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(bytes, 4), mask), _mm_and_si128(bytes, mask));
}

// The block's int32 lanes, as f32, times its scale product, added to the accumulator.
inline __m256 accumulate(__m256 acc, __m256i lanes, float scale) {
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(lanes), _mm256_set1_ps(scale), acc);
}

// The first `count` lanes of v (0 to 8) to y: a group's last outputs may end inside a ymm.
inline void store_first(float* y, int count, __m256 v) {
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_maskstore_ps(y, mask, v);
}

// Halves added pairwise down to one lane (a fixed order, the same for every caller).
inline float sum_lanes(__m256 v) {
    const __m128 sum4 = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 sum2 = _mm_add_ps(sum4, _mm_movehl_ps(sum4, sum4));
    return _mm_cvtss_f32(_mm_add_ss(sum2, _mm_movehdup_ps(sum2)));
}

}  // namespace forge::kernels::simd::lanes256

#endif
