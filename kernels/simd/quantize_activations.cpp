// The activation encoders of the quantized matrix products (Q8_0 rows for the 32-element
// formats, Q8_K rows for the K-quants), vectorized with the scalar encoders' exact bits
// (kernels/scalar/quantize.cpp, which follow ggml's quantize_row_q8_0_ref / q8_K_ref).
//
// Exactness needs care in three places, each written out below:
// - the absolute maximum ignores NaN the way the scalar `std::max(amax, |x|)` does;
// - Q8_0 rounds with roundf (ties away from zero), not the vector unit's ties-to-even, and
//   turns the result into a byte as C's (int8_t)(int)x does: truncate to int32 (INT_MIN for
//   NaN or out of range), keep the low byte;
// - Q8_K rounds with ggml's nearest_int (add 1.5 * 2^23, read the low mantissa bits), the
//   multiply and the add kept separate (this file is built without FMA contraction), and
//   takes the sign of the first element of largest magnitude.
//
// One generic encoder per format over a `Lanes` type that hides the vector width: AVX-512
// (16 floats), AVX2 (8 floats); without AVX2 the scalar encoders are the fast ones too.
#include "kernels/quantize.h"

#include "kernels/half.h"

#include <bit>
#include <cstdint>

#if defined(__AVX512F__) || defined(__AVX2__)
// g++ 12 reports a false "may be used uninitialized" inside AVX-512 intrinsics (their
// undefined pass-through operand); located in the header, so silenced only there.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif

namespace forge::kernels::simd {

#if defined(__AVX512F__) || defined(__AVX2__)
namespace {

#if defined(__AVX512F__)
struct Lanes {
    static constexpr int kWidth = 16;
    using F = __m512;
    using I = __m512i;

    static F load(const float* p) { return _mm512_loadu_ps(p); }
    static F zero() { return _mm512_setzero_ps(); }
    static F abs(F x) { return _mm512_abs_ps(x); }
    // vmaxps returns its second operand when either is NaN: a NaN in x never wins over acc.
    static F max_into(F x, F acc) { return _mm512_max_ps(x, acc); }
    static float reduce_max(F x) { return _mm512_reduce_max_ps(x); }
    static unsigned equal_lanes(F x, float value) {
        return _mm512_cmp_ps_mask(x, _mm512_set1_ps(value), _CMP_EQ_OQ);
    }
    static F mul(F x, float s) { return _mm512_mul_ps(x, _mm512_set1_ps(s)); }
    static F add(F x, float s) { return _mm512_add_ps(x, _mm512_set1_ps(s)); }
    static F trunc(F x) { return _mm512_roundscale_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
    static F plus_one_where_at_least_half(F t, F frac) {
        const __mmask16 up = _mm512_cmp_ps_mask(frac, _mm512_set1_ps(0.5f), _CMP_GE_OQ);
        return _mm512_mask_add_ps(t, up, t, _mm512_set1_ps(1.0f));
    }
    static F with_sign_of(F magnitude, F x) {
        const __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN));
        return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(magnitude), sign));
    }
    static F sub(F a, F b) { return _mm512_sub_ps(a, b); }
    // cvttps2dq: truncation, INT_MIN for NaN and out-of-range values (as the scalar code).
    static I truncate(F x) { return _mm512_cvttps_epi32(x); }
    static I bits(F x) { return _mm512_castps_si512(x); }
    static I and_(I a, std::int32_t b) { return _mm512_and_si512(a, _mm512_set1_epi32(b)); }
    static I sub(I a, std::int32_t b) { return _mm512_sub_epi32(a, _mm512_set1_epi32(b)); }
    static I min(I a, std::int32_t b) { return _mm512_min_epi32(a, _mm512_set1_epi32(b)); }
    // The low byte of each int32 lane of q[0 .. 32 / kWidth), in order: 32 bytes.
    static void store_low_bytes(const I* q, std::int8_t* out) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm512_cvtepi32_epi8(q[0]));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16), _mm512_cvtepi32_epi8(q[1]));
    }
    // Σ of the low bytes of 16 int32 lanes (q[0]), each read as a signed byte.
    static int sum_low_bytes16(const I* q) {
        return _mm512_reduce_add_epi32(_mm512_srai_epi32(_mm512_slli_epi32(q[0], 24), 24));
    }
};
#else
struct Lanes {
    static constexpr int kWidth = 8;
    using F = __m256;
    using I = __m256i;

    static F load(const float* p) { return _mm256_loadu_ps(p); }
    static F zero() { return _mm256_setzero_ps(); }
    static F abs(F x) { return _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(INT32_MAX))); }
    // vmaxps returns its second operand when either is NaN: a NaN in x never wins over acc.
    static F max_into(F x, F acc) { return _mm256_max_ps(x, acc); }
    static float reduce_max(F x) {
        __m128 m = _mm_max_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
        m = _mm_max_ps(m, _mm_movehl_ps(m, m));
        m = _mm_max_ss(m, _mm_movehdup_ps(m));
        return _mm_cvtss_f32(m);
    }
    static unsigned equal_lanes(F x, float value) {
        return static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(x, _mm256_set1_ps(value), _CMP_EQ_OQ)));
    }
    static F mul(F x, float s) { return _mm256_mul_ps(x, _mm256_set1_ps(s)); }
    static F add(F x, float s) { return _mm256_add_ps(x, _mm256_set1_ps(s)); }
    static F trunc(F x) { return _mm256_round_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
    static F plus_one_where_at_least_half(F t, F frac) {
        const F up = _mm256_cmp_ps(frac, _mm256_set1_ps(0.5f), _CMP_GE_OQ);
        return _mm256_add_ps(t, _mm256_and_ps(up, _mm256_set1_ps(1.0f)));
    }
    static F with_sign_of(F magnitude, F x) {
        return _mm256_or_ps(magnitude, _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(INT32_MIN))));
    }
    static F sub(F a, F b) { return _mm256_sub_ps(a, b); }
    static I truncate(F x) { return _mm256_cvttps_epi32(x); }
    static I bits(F x) { return _mm256_castps_si256(x); }
    static I and_(I a, std::int32_t b) { return _mm256_and_si256(a, _mm256_set1_epi32(b)); }
    static I sub(I a, std::int32_t b) { return _mm256_sub_epi32(a, _mm256_set1_epi32(b)); }
    static I min(I a, std::int32_t b) { return _mm256_min_epi32(a, _mm256_set1_epi32(b)); }
    // The low byte of each int32 lane of q[0 .. 4), in order. Masked to 0..255 first, so the
    // saturating packs change nothing; they interleave the 128-bit halves, which the final
    // permutation undoes.
    static void store_low_bytes(const I* q, std::int8_t* out) {
        const __m256i words01 = _mm256_packus_epi32(and_(q[0], 0xff), and_(q[1], 0xff));
        const __m256i words23 = _mm256_packus_epi32(and_(q[2], 0xff), and_(q[3], 0xff));
        const __m256i bytes = _mm256_packus_epi16(words01, words23);
        const __m256i ordered = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), ordered);
    }
    // Σ of the low bytes of 16 int32 lanes (q[0], q[1]), each read as a signed byte.
    static int sum_low_bytes16(const I* q) {
        const __m256i a = _mm256_srai_epi32(_mm256_slli_epi32(q[0], 24), 24);
        const __m256i b = _mm256_srai_epi32(_mm256_slli_epi32(q[1], 24), 24);
        __m128i s = _mm_add_epi32(_mm256_castsi256_si128(_mm256_add_epi32(a, b)),
                                  _mm256_extracti128_si256(_mm256_add_epi32(a, b), 1));
        s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
        s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
        return _mm_cvtsi128_si32(s);
    }
};
#endif

using F = Lanes::F;
using I = Lanes::I;
constexpr int kPer32 = 32 / Lanes::kWidth;  // vectors per 32 values

// max |x[j]| over n values (a multiple of the width), NaN ignored.
float absmax(const float* x, int n) {
    F acc = Lanes::zero();
    for (int j = 0; j < n; j += Lanes::kWidth) acc = Lanes::max_into(Lanes::abs(Lanes::load(x + j)), acc);
    return Lanes::reduce_max(acc);
}

// roundf(p) as int32 the way (int)roundf(p) runs on x86: |p| truncated, plus one where the
// dropped fraction (exact in f32) is at least a half, the sign put back, then truncated to
// int32 (NaN and infinity stay NaN/infinity and become INT_MIN).
I round_half_away(F p) {
    const F magnitude = Lanes::abs(p);
    const F whole = Lanes::trunc(magnitude);
    const F rounded = Lanes::plus_one_where_at_least_half(whole, Lanes::sub(magnitude, whole));
    return Lanes::truncate(Lanes::with_sign_of(rounded, p));
}

// ggml's nearest_int lane-wise: add 1.5 * 2^23 and read the low mantissa bits.
I nearest_int(F p) { return Lanes::sub(Lanes::and_(Lanes::bits(Lanes::add(p, 12582912.f)), 0x007fffff), 0x00400000); }

void encode(const float* v, BlockQ8_0& b) {
    const float d = absmax(v, 32) / 127;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    b.d = f32_to_f16(d);
    I q[kPer32];
    for (int i = 0; i < kPer32; ++i) q[i] = round_half_away(Lanes::mul(Lanes::load(v + i * Lanes::kWidth), id));
    Lanes::store_low_bytes(q, b.qs.data());
}

// The first element of largest magnitude (amax > 0, so there is one), sign included.
float first_with_magnitude(const float* v, float amax) {
    for (int j = 0;; j += Lanes::kWidth) {
        if (const unsigned hits = Lanes::equal_lanes(Lanes::abs(Lanes::load(v + j)), amax); hits != 0) {
            return v[j + std::countr_zero(hits)];
        }
    }
}

void encode(const float* v, BlockQ8_K& b) {
    const float amax = absmax(v, 256);
    if (amax == 0.0f) {
        b.d = 0;
        b.qs.fill(0);
        b.bsums.fill(0);
        return;
    }
    const float iscale = -127.f / first_with_magnitude(v, amax);
    for (int g = 0; g < 8; ++g) {  // 32 values: two bsums
        I q[kPer32];
        for (int i = 0; i < kPer32; ++i) {
            q[i] = Lanes::min(nearest_int(Lanes::mul(Lanes::load(v + 32 * g + i * Lanes::kWidth), iscale)), 127);
        }
        Lanes::store_low_bytes(q, b.qs.data() + 32 * g);
        b.bsums[static_cast<std::size_t>(2 * g)] = static_cast<std::int16_t>(Lanes::sum_low_bytes16(q));
        b.bsums[static_cast<std::size_t>(2 * g + 1)] = static_cast<std::int16_t>(Lanes::sum_low_bytes16(q + kPer32 / 2));
    }
    b.d = 1 / iscale;
}

}  // namespace

void quantize(std::span<const float> x, std::span<BlockQ8_0> out) noexcept {
    for (std::size_t i = 0; i < out.size(); ++i) encode(x.data() + i * 32, out[i]);
}

void quantize(std::span<const float> x, std::span<BlockQ8_K> out) noexcept {
    for (std::size_t i = 0; i < out.size(); ++i) encode(x.data() + i * 256, out[i]);
}

#else  // no AVX2: the scalar encoders are the fast ones too

void quantize(std::span<const float> x, std::span<BlockQ8_0> out) noexcept { scalar::quantize(x, out); }
void quantize(std::span<const float> x, std::span<BlockQ8_K> out) noexcept { scalar::quantize(x, out); }

#endif

}  // namespace forge::kernels::simd
