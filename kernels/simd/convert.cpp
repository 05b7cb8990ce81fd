#include "kernels/convert.h"

#include "kernels/half.h"

// g++ 12 reports a false "may be used uninitialized" inside xsimd 8's AVX-512 shift of a
// uint32 batch (an intrinsic's undefined-input operand); the values are all initialized.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <xsimd/xsimd.hpp>
#pragma GCC diagnostic pop

#if defined(__F16C__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace forge::kernels::simd {

// f16 <-> f32 uses the F16C instructions (16 lanes at a time with AVX-512) where the build
// targets them: vcvtps2ph with round-to-nearest-even gives exactly kernels/half.h's results,
// NaN payloads included.

void f32_to_f16(std::span<const float> src, std::span<std::uint16_t> dst) noexcept {
    std::size_t i = 0;
#if defined(__AVX512F__)
    for (; i + 16 <= src.size(); i += 16) {
        const __m512 v = _mm512_loadu_ps(src.data() + i);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst.data() + i),
                            _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
#endif
#if defined(__F16C__)
    for (; i + 8 <= src.size(); i += 8) {
        const __m256 v = _mm256_loadu_ps(src.data() + i);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst.data() + i),
                         _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
#endif
    for (; i < src.size(); ++i) dst[i] = kernels::f32_to_f16(src[i]);
}

void f16_to_f32(std::span<const std::uint16_t> src, std::span<float> dst) noexcept {
    std::size_t i = 0;
#if defined(__AVX512F__)
    for (; i + 16 <= src.size(); i += 16) {
        const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src.data() + i));
        _mm512_storeu_ps(dst.data() + i, _mm512_cvtph_ps(h));
    }
#endif
#if defined(__F16C__)
    for (; i + 8 <= src.size(); i += 8) {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src.data() + i));
        _mm256_storeu_ps(dst.data() + i, _mm256_cvtph_ps(h));
    }
#endif
    for (; i < src.size(); ++i) dst[i] = kernels::f16_to_f32(src[i]);
}

void f32_to_bf16(std::span<const float> src, std::span<std::uint16_t> dst) noexcept {
    using batch = xsimd::batch<std::uint32_t>;
    constexpr std::size_t lanes = batch::size;
    std::size_t i = 0;
    alignas(64) std::uint32_t rounded[lanes];
    for (; i + lanes <= src.size(); i += lanes) {
        const batch bits = batch::load_unaligned(reinterpret_cast<const std::uint32_t*>(src.data() + i));
        // Same rule as kernels/half.h: round to nearest even, quiet NaNs.
        const batch nearest_even = (bits + batch(0x7fffu) + ((bits >> 16) & batch(1u))) >> 16;
        const batch quiet_nan = (bits >> 16) | batch(0x40u);
        const auto is_nan = (bits & batch(0x7fffffffu)) > batch(0x7f800000u);
        xsimd::select(is_nan, quiet_nan, nearest_even).store_aligned(rounded);
        for (std::size_t lane = 0; lane < lanes; ++lane) {
            dst[i + lane] = static_cast<std::uint16_t>(rounded[lane]);
        }
    }
    for (; i < src.size(); ++i) dst[i] = kernels::f32_to_bf16(src[i]);
}

void bf16_to_f32(std::span<const std::uint16_t> src, std::span<float> dst) noexcept {
    // A widening shift; written plainly, the compiler vectorizes it for the target ISA.
    for (std::size_t i = 0; i < src.size(); ++i) dst[i] = kernels::bf16_to_f32(src[i]);
}

}  // namespace forge::kernels::simd
