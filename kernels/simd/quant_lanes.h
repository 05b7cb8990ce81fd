// Lane-wise building blocks shared by the quantized dot products (quant_dot.cpp) and the
// quantized GEMM (quant_gemm.cpp) on AVX-512: one zmm holds a pair of 32-element blocks
// (lanes 0-7 the first block, 8-15 the second). Each block's integer sums stay in its eight
// int32 lanes; they become f32 and are multiply-added with the pair's scale products into
// an f32 accumulator, which is summed across lanes once per output. Because the dot and the
// GEMM use exactly these steps in the same order, the GEMM gives every output the bits of
// the dot product (the tests check it).
#pragma once

#include "kernels/quant_blocks.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__AVX512DQ__)
#define FORGE_QUANT_LANES_512 1
// g++ 12 reports a false "may be used uninitialized" inside AVX-512 intrinsics (their
// undefined pass-through operand); located in the header, so silenced only there.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <cstdint>

namespace forge::kernels::simd::lanes {

inline float half(f16_bits h) { return _cvtsh_ss(h); }

// Σ over each group of four bytes of u[i] * s[i] (u unsigned, s signed), sixteen int32
// lanes. Without VNNI the 16-bit pair sums of vpmaddubsw must not saturate: callers keep
// u <= 128 there (VNNI has no such limit).
// dot_groups_onto adds them to `start` (one instruction with VNNI: a correction folded in
// there costs nothing).
inline __m512i dot_groups_onto(__m512i start, __m512i u, __m512i s) {
#if defined(__AVX512VNNI__)
    return _mm512_dpbusd_epi32(start, u, s);
#else
    return _mm512_add_epi32(start, _mm512_madd_epi16(_mm512_maddubs_epi16(u, s), _mm512_set1_epi16(1)));
#endif
}

inline __m512i dot_groups(__m512i u, __m512i s) { return dot_groups_onto(_mm512_setzero_si512(), u, s); }

// Two 32-byte quant arrays side by side.
inline __m512i load_pair(const void* first, const void* second) {
    const __m256i low = _mm256_loadu_si256(static_cast<const __m256i*>(first));
    const __m256i high = _mm256_loadu_si256(static_cast<const __m256i*>(second));
    return _mm512_inserti64x4(_mm512_castsi256_si512(low), high, 1);
}

// One 32-byte quant array in the low half, zeros above (the odd block at a row's end).
inline __m512i load_single(const void* first) {
    return _mm512_zextsi256_si512(_mm256_loadu_si256(static_cast<const __m256i*>(first)));
}

// The quants of two Q4_0-style nibble blocks (16 bytes each: element j in the low nibble of
// byte j, element j + 16 in the high one) as 64 bytes in element order, values 0..15.
inline __m512i unpack_nibble_pair(const std::uint8_t* first, const std::uint8_t* second) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(first));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(second));
    const __m512i both = _mm512_castsi256_si512(_mm256_set_m128i(b, a));
    // 128-bit lanes: a, a, b, b; then the second copy of each shifted down to its high nibbles.
    const __m512i doubled = _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 1, 0, 1, 2, 3, 2, 3), both);
    const __m512i shifted = _mm512_srlv_epi64(doubled, _mm512_setr_epi64(0, 0, 4, 4, 0, 0, 4, 4));
    return _mm512_and_si512(shifted, _mm512_set1_epi8(0x0F));
}

inline __m512i unpack_nibble_single(const std::uint8_t* first) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(first));
    const __m256i both = _mm256_set_m128i(_mm_srli_epi16(a, 4), a);
    return _mm512_zextsi256_si512(_mm256_and_si256(both, _mm256_set1_epi8(0x0F)));
}

// Lanes 0-7 = first, lanes 8-15 = second.
inline __m512 scale_pair(float first, float second) {
    return _mm512_insertf32x8(_mm512_set1_ps(first), _mm256_set1_ps(second), 1);
}

// The pair's int32 lanes, as f32, times its scales, added to the accumulator.
inline __m512 accumulate(__m512 acc, __m512i lanes, __m512 scales) {
    return _mm512_fmadd_ps(_mm512_cvtepi32_ps(lanes), scales, acc);
}

// Halves added pairwise down to one lane (a fixed order, the same for every caller).
inline float sum_lanes(__m512 acc) {
    const __m256 eight = _mm256_add_ps(_mm512_castps512_ps256(acc), _mm512_extractf32x8_ps(acc, 1));
    const __m128 four = _mm_add_ps(_mm256_castps256_ps128(eight), _mm256_extractf128_ps(eight, 1));
    const __m128 two = _mm_add_ps(four, _mm_movehl_ps(four, four));
    return _mm_cvtss_f32(_mm_add_ss(two, _mm_movehdup_ps(two)));
}

// Q8_0 x Q8_0 lanes: |w| * (a negated where w < 0) = w * a, the unsigned operand first.
// (Where w = 0 the product is 0 whatever a is.) Exact for w = -128 too (|w| reads as 128
// unsigned); a = -128 never comes from the quantizer.
inline __m512i q8_lanes(__m512i w, __m512i a) {
    const __m512i signed_a = _mm512_mask_sub_epi8(a, _mm512_movepi8_mask(w), _mm512_setzero_si512(), a);
    return dot_groups(_mm512_abs_epi8(w), signed_a);
}

#if defined(__AVX512VNNI__)
// acc + Σ over each group of four bytes of u[i] * (the four signed bytes at `four`, the same
// in every lane): vpdpbusd with the bytes as its broadcast memory operand ({1to16}), which the
// load unit expands. g++ 12 does not fold _mm512_set1_epi32 of a load into vpdpbusd, and the
// separate vpbroadcastd it emits instead takes a slot on one of the vector ports: with several
// activation rows (one broadcast per vpdpbusd) the interleaved kernels' 3- and 4-row tiles
// lost 10-40% per weight byte to them (`bench_quant_k rows`, tools/bench_quant_k; docs/LLM.md, "Four streams
// against their read bound").
inline __m512i dot_groups_broadcast(__m512i acc, __m512i u, const std::int8_t* four) {
    using Word = std::int32_t __attribute__((may_alias));
    __asm__("vpdpbusd %2%{1to16%}, %1, %0" : "+v"(acc) : "v"(u), "m"(*reinterpret_cast<const Word*>(four)));
    return acc;
}
#endif

}  // namespace forge::kernels::simd::lanes

#endif
