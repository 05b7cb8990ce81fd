// An in-register transpose of a 16 x 16 block of 32-bit values (AVX-512): the building
// block of packing k-contiguous matmul operands and of blocked 2-D transposing copies.
// Internal to kernels/simd/. Shuffles only, so any bit pattern (NaN payloads included) passes
// through unchanged.
#pragma once

#if defined(__AVX512F__)
// g++ 12 reports a false "may be used uninitialized" inside AVX-512 shuffle intrinsics (their
// undefined pass-through operand); the diagnostic is located in the header, so it is silenced
// only there.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

namespace forge::kernels::simd {

// Transpose 16 vectors of 16 floats in registers: rows[i] lane j becomes rows[j] lane i.
inline void transpose16(__m512 rows[16]) {
    __m512 pairs[16];
    for (int i = 0; i < 16; i += 2) {
        pairs[i] = _mm512_unpacklo_ps(rows[i], rows[i + 1]);
        pairs[i + 1] = _mm512_unpackhi_ps(rows[i], rows[i + 1]);
    }
    // quads[4i + j], 128-bit lane L: rows 4i..4i+3 at column 4L + j.
    __m512 quads[16];
    for (int i = 0; i < 16; i += 4) {
        quads[i] = _mm512_shuffle_ps(pairs[i], pairs[i + 2], 0x44);
        quads[i + 1] = _mm512_shuffle_ps(pairs[i], pairs[i + 2], 0xEE);
        quads[i + 2] = _mm512_shuffle_ps(pairs[i + 1], pairs[i + 3], 0x44);
        quads[i + 3] = _mm512_shuffle_ps(pairs[i + 1], pairs[i + 3], 0xEE);
    }
    // Column 4L + j gathers lane L of quads[j], quads[4 + j], quads[8 + j], quads[12 + j].
    for (int j = 0; j < 4; ++j) {
        const __m512 even_low = _mm512_shuffle_f32x4(quads[j], quads[4 + j], 0x88);
        const __m512 odd_low = _mm512_shuffle_f32x4(quads[j], quads[4 + j], 0xDD);
        const __m512 even_high = _mm512_shuffle_f32x4(quads[8 + j], quads[12 + j], 0x88);
        const __m512 odd_high = _mm512_shuffle_f32x4(quads[8 + j], quads[12 + j], 0xDD);
        rows[j] = _mm512_shuffle_f32x4(even_low, even_high, 0x88);
        rows[4 + j] = _mm512_shuffle_f32x4(odd_low, odd_high, 0x88);
        rows[8 + j] = _mm512_shuffle_f32x4(even_low, even_high, 0xDD);
        rows[12 + j] = _mm512_shuffle_f32x4(odd_low, odd_high, 0xDD);
    }
}

}  // namespace forge::kernels::simd

#endif
