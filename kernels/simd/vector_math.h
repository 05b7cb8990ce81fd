// Shared building blocks of the simd kernels: the float batch type, loops that run a batch
// function over a row including its ragged tail, and the few functions where xsimd's own
// version is not accurate enough.
#pragma once

// g++ 12 reports false "(may be) used uninitialized" warnings inside xsimd 8's AVX-512 math
// (intrinsics with an undefined-input operand, e.g. in exp's bit tricks). They surface where
// the code is inlined into our kernels, so they stay off for every file including this one.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

namespace forge::kernels::simd {

using Batch = xsimd::batch<float>;
using IntBatch = xsimd::batch<std::int32_t>;
inline constexpr std::size_t kLanes = Batch::size;

// The tail of a row (fewer than kLanes elements) goes through the same batch code as the
// body, via a padded buffer: every element gets bitwise the same result wherever it sits in
// the row, so results never depend on how a front-end splits its rows. `pad` fills the
// unused lanes with a value that is harmless for the operation.
inline Batch load_tail(const float* x, std::size_t count, float pad) {
    alignas(64) float buffer[kLanes];
    std::fill(buffer, buffer + kLanes, pad);
    std::copy(x, x + count, buffer);
    return Batch::load_aligned(buffer);
}

inline void store_tail(Batch v, float* y, std::size_t count) {
    alignas(64) float buffer[kLanes];
    v.store_aligned(buffer);
    std::copy(buffer, buffer + count, y);
}

// y[i] = f(x[i]) for a batch function f.
template <typename F>
inline void map_batches(std::span<const float> x, std::span<float> y, F f) {
    const std::size_t n = x.size();
    std::size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) f(Batch::load_unaligned(x.data() + i)).store_unaligned(y.data() + i);
    if (i < n) store_tail(f(load_tail(x.data() + i, n - i, 0.0f)), y.data() + i, n - i);
}

// exp(-z * z) without the rounding error of z * z, which exp would otherwise magnify by z^2:
// hi keeps 12 significant bits of z, so hi * hi is exact, and z^2 = hi^2 + (z - hi)(z + hi).
inline Batch exp_minus_square(Batch z) {
    const Batch hi = xsimd::bitwise_cast<Batch>(xsimd::bitwise_cast<IntBatch>(z) &
                                                IntBatch(static_cast<std::int32_t>(0xfffff000u)));
    const Batch lo = z - hi;
    return xsimd::exp(-hi * hi) * xsimd::exp(-lo * (z + hi));
}

// erfc with ~3e-7 relative error everywhere. xsimd::erfc loses up to ~5e-6 for z > 2 (its
// exp(-z^2) factor and tail polynomial), which matters for the far negative tail of GELU.
// There we use exp(-z^2) / sqrt(pi) times the classical continued fraction
//   1 / (z + (1/2) / (z + 1 / (z + (3/2) / (z + 2 / (z + ...))))),
// which 16 terms evaluate to float accuracy for z >= 2. Measured in test/kernels/unary_test.
inline Batch erfc(Batch z) {
    const Batch near = xsimd::erfc(z);
    const auto far = z >= Batch(2.0f);
    if (!xsimd::any(far)) return near;
    const Batch zf = xsimd::select(far, z, Batch(2.0f));  // keep the unused lanes finite
    Batch fraction = zf;
    for (int k = 16; k >= 1; --k) fraction = zf + Batch(0.5f * static_cast<float>(k)) / fraction;
    constexpr float kSqrtPi = 1.7724538509055160273f;
    const Batch tail = exp_minus_square(zf) / (fraction * Batch(kSqrtPi));
    return xsimd::select(far, tail, near);
}

// The simd definitions of the functions that more than one kernel applies (unary, its
// derivative, the fused NAM layer, the LSTM cell), as kernels/scalar/activation_math.h holds
// the scalar ones: one sigmoid, one exact tanh and one fast tanh per backend.

// 1 / (1 + exp(-x)).
[[gnu::always_inline]] inline Batch sigmoid(Batch x) { return Batch(1.0f) / (Batch(1.0f) + xsimd::exp(-x)); }

// tanh to a few ulp without branches. xsimd::tanh switches between a polynomial and an exp
// formula with data-dependent branches and a general exp (overflow and underflow checks this
// range never needs); here one formula covers every input:
//   tanh|x| = -m / (2 + m),   m = expm1(-2|x|)
//   expm1(y) = 2^n·(1 + p) - 1 = 2^n·p + (2^n - 1),   y = n·ln2 + r, |r| <= ln2/2, p = expm1(r)
// p is the Taylor series of expm1 to r^7 (truncation < 2e-8 relative). Near zero n = 0 and m = p
// keeps full relative accuracy; elsewhere 2^n - 1 is exact and |m| > 0.29, so nothing cancels.
// |x| is capped at 9, where tanh is 1 in float; min's operands in this order let NaN through
// (x86's min returns its second operand when either is NaN), as std::tanh does. (Not named
// tanh: xsimd::tanh would be found beside it by argument-dependent lookup.)
//
// It runs on every activation of a NAM WaveNet, so it is written for the fewest operations
// (19 on AVX-512): y = -2|x| is never formed; the reduction and the polynomial run on
// s = -r/2 = |x| + n·ln2/2, with each Horner coefficient times the power of -2 that keeps every
// intermediate an exact power-of-two multiple of the plain form's (so each rounds the same:
// scaling by powers of two commutes with rounding, and no intermediate is subnormal),
// p = -2·ph, and 2^n·p = -2^(n+1)·ph. Only the one-step reduction below changes bits.
namespace tanh_detail {
inline constexpr float kLn2 = 0.69314718055994530942f;
inline constexpr float kLog2e = 1.44269504088896341f;
// expm1(r) = r + r²·(c2 + c3·r + ... + c7·r^5): the plain form's coefficients c_k = 1/k!.
inline constexpr float kC2 = 0.5f, kC3 = 1.0f / 6.0f, kC4 = 1.0f / 24.0f, kC5 = 1.0f / 120.0f,
                       kC6 = 1.0f / 720.0f, kC7 = 1.0f / 5040.0f;
}  // namespace tanh_detail

[[gnu::always_inline]] inline Batch exact_tanh(Batch x) {
    using namespace tanh_detail;
    const Batch a = xsimd::min(Batch(9.0f), xsimd::abs(x));
    const Batch n = xsimd::nearbyint(a * Batch(-2.0f * kLog2e));
    // s = a + n·ln2/2, the plain form's r being -2s, in one step: n·(ln2 - float(ln2)) is below
    // 26·2e-9 and is scaled down by 2^n in m, so the two-step Cody-Waite reduction (ln2 split in
    // two) changed 348 000 of the 2^32 results and not the worst error (1.49 epsilon over every
    // float of magnitude 1e-30 to 40, checked exhaustively either way).
    const Batch s = xsimd::fma(n, Batch(0.5f * kLn2), a);
    // u = -2·q(r) by Horner on s: the coefficient of step j carries (-2)^(6-j).
    Batch u = Batch(64.0f * kC7);
    u = xsimd::fma(u, s, Batch(-32.0f * kC6));
    u = xsimd::fma(u, s, Batch(16.0f * kC5));
    u = xsimd::fma(u, s, Batch(-8.0f * kC4));
    u = xsimd::fma(u, s, Batch(4.0f * kC3));
    u = xsimd::fma(u, s, Batch(-2.0f * kC2));
    const Batch ph = xsimd::fma(u, s * s, s);  // p = expm1(r) = -2·ph
    // 2^n and -2^(n+1) (-26 <= n <= 0: normal floats).
#if XSIMD_WITH_AVX512F
    const Batch scale(_mm512_scalef_ps(_mm512_set1_ps(1.0f), n));
    const Batch minus_twice_scale(_mm512_scalef_ps(_mm512_set1_ps(-2.0f), n));
#else
    const Batch scale = xsimd::bitwise_cast<Batch>((xsimd::to_int(n) + IntBatch(127)) << 23);
    const Batch minus_twice_scale = Batch(-2.0f) * scale;
#endif
    const Batch m = xsimd::fma(minus_twice_scale, ph, scale - Batch(1.0f));
    // |m| with the sign of x (m <= 0, and tanh(+0) needs +0 where -m would give -0), over 2 + m > 0.
#if XSIMD_WITH_AVX512F
    const __m512i sign_bit = _mm512_set1_epi32(static_cast<int>(0x80000000u));  // one bit select:
    const Batch signed_m(_mm512_castsi512_ps(_mm512_ternarylogic_epi32(         // sign ? x : m
        sign_bit, _mm512_castps_si512(x), _mm512_castps_si512(m), 0xCA)));
#else
    const Batch signed_m = xsimd::copysign(m, x);
#endif
    return signed_m / (Batch(2.0f) + m);
}

// NeuralAmpModelerCore's fast_tanh, lane-wise (see kernels/scalar/activation_math.h).
[[gnu::always_inline]] inline Batch fast_tanh(Batch x) {
    const Batch ax = xsimd::abs(x);
    const Batch x2 = x * x;
    const Batch num = x * (Batch(2.45550750702956f) + Batch(2.45550750702956f) * ax +
                           (Batch(0.893229853513558f) + Batch(0.821226666969744f) * ax) * x2);
    const Batch den = Batch(2.44506634652299f) +
                      (Batch(2.44506634652299f) + x2) * xsimd::abs(x + Batch(0.814642734961073f) * x * ax);
    return num / den;
}

// Core's fast_sigmoid, lane-wise: (fast_tanh(x / 2) + 1) / 2.
[[gnu::always_inline]] inline Batch fast_sigmoid(Batch x) { return Batch(0.5f) * (fast_tanh(x * Batch(0.5f)) + Batch(1.0f)); }

// Horizontal sum and max of one batch.
inline float sum_lanes(Batch v) { return xsimd::hadd(v); }
inline float max_lanes(Batch v) {
    alignas(64) float lanes[kLanes];
    v.store_aligned(lanes);
    return *std::max_element(lanes, lanes + kLanes);
}

}  // namespace forge::kernels::simd
