// Loading a vector of f32 from f32 or f16 memory: the one place the simd kernels turn half
// precision into single precision. Internal to kernels/simd/.
//
// F16C (and AVX-512F's 16-wide form) converts exactly like kernels/half.h; a build without
// F16C converts lane by lane with that same scalar code.
#pragma once

#include "kernels/half.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <xsimd/xsimd.hpp>
#pragma GCC diagnostic pop

#if defined(__F16C__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <cstdint>

namespace forge::kernels::simd {

using FloatBatch = xsimd::batch<float>;
inline constexpr std::int64_t kFloatLanes = static_cast<std::int64_t>(FloatBatch::size);

inline FloatBatch load_widened(const float* src) { return FloatBatch::load_unaligned(src); }

inline FloatBatch load_widened(const std::uint16_t* src) {
    // xsimd's default batch is as wide as the widest instruction set the build enables.
#if defined(__AVX512F__)
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src)));
#elif defined(__AVX__) && defined(__F16C__)
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
#else
    alignas(64) float lanes[kFloatLanes];
    for (std::int64_t i = 0; i < kFloatLanes; ++i) lanes[i] = kernels::f16_to_f32(src[i]);
    return FloatBatch::load_aligned(lanes);
#endif
}

inline float widen(float value) { return value; }
inline float widen(std::uint16_t half) { return kernels::f16_to_f32(half); }

}  // namespace forge::kernels::simd
