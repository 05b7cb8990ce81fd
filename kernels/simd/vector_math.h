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

// 1 / (1 + exp(-x)): the one simd sigmoid (unary, its derivative, NAM's activations, the
// LSTM cell), as kernels/scalar/activation_math.h is the one scalar sigmoid.
[[gnu::always_inline]] inline Batch sigmoid(Batch x) { return Batch(1.0f) / (Batch(1.0f) + xsimd::exp(-x)); }

// Horizontal sum and max of one batch.
inline float sum_lanes(Batch v) { return xsimd::hadd(v); }
inline float max_lanes(Batch v) {
    alignas(64) float lanes[kLanes];
    v.store_aligned(lanes);
    return *std::max_element(lanes, lanes + kLanes);
}

}  // namespace forge::kernels::simd
