// Block decoders, simd backend. Decoding is a load, a table lookup or shift, and one or two
// multiplies per element: with -march=native GCC vectorizes most of the scalar loops well, and
// doing the same products in the same order keeps the bits identical. So the simd backend uses
// the scalar decoders, except where profiling asked for a hand-written one:
// - Q6_K, whose scalar loop GCC 12 leaves scalar (four outputs per step from bit fields of
//   three bytes). A LoRA step on a Q4_K_M base decodes the Q6_K output head (151,936 rows) for
//   each chunk of its loss's input gradient: the scalar decoder was 6% of the step's cycles.
#include "kernels/dequantize.h"

#include "kernels/half.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace forge::kernels::simd {
namespace {

#if defined(__AVX512F__)
// 16 bytes from `p`, each widened to an int32 lane.
__m512i widen_bytes(const std::uint8_t* p) {
    return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// One Q6_K value per lane: low nibble | two high bits << 4, minus 32, as float.
__m512 six_bit_values(__m512i nibble, __m512i high_bits) {
    const __m512i q = _mm512_or_si512(_mm512_and_si512(nibble, _mm512_set1_epi32(0xF)),
                                      _mm512_slli_epi32(_mm512_and_si512(high_bits, _mm512_set1_epi32(3)), 4));
    return _mm512_cvtepi32_ps(_mm512_sub_epi32(q, _mm512_set1_epi32(32)));
}
#endif

}  // namespace

void dequantize(std::span<const BlockQ4_0> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockQ4_1> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockQ5_0> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockQ5_1> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockQ8_0> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockQ2_K> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockQ3_K> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockQ4_K> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockQ5_K> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
#if defined(__AVX512F__)
// scalar::dequantize's layout and arithmetic, 16 values of l at a time (l and l + 15 share a
// scale): y = (d · scale) · q, the same two products in the same order.
void dequantize(std::span<const BlockQ6_K> blocks, std::span<float> out) noexcept {
    float* y = out.data();
    for (const auto& b : blocks) {
        const float d = f16_to_f32(b.d);
        for (int half128 = 0; half128 < 2; ++half128) {
            const std::uint8_t* ql = b.ql.data() + 64 * half128;
            const std::uint8_t* qh = b.qh.data() + 32 * half128;
            const std::int8_t* sc = b.scales.data() + 8 * half128;
            for (int l = 0; l < 32; l += 16) {
                const int s = l / 16;
                const __m512i low = widen_bytes(ql + l), low2 = widen_bytes(ql + l + 32), high = widen_bytes(qh + l);
                const __m512 q1 = six_bit_values(low, high);
                const __m512 q2 = six_bit_values(low2, _mm512_srli_epi32(high, 2));
                const __m512 q3 = six_bit_values(_mm512_srli_epi32(low, 4), _mm512_srli_epi32(high, 4));
                const __m512 q4 = six_bit_values(_mm512_srli_epi32(low2, 4), _mm512_srli_epi32(high, 6));
                auto scale = [&](int k) { return _mm512_set1_ps(d * static_cast<float>(sc[s + k])); };
                _mm512_storeu_ps(y + l, _mm512_mul_ps(scale(0), q1));
                _mm512_storeu_ps(y + l + 32, _mm512_mul_ps(scale(2), q2));
                _mm512_storeu_ps(y + l + 64, _mm512_mul_ps(scale(4), q3));
                _mm512_storeu_ps(y + l + 96, _mm512_mul_ps(scale(6), q4));
            }
            y += 128;
        }
    }
}
#else
void dequantize(std::span<const BlockQ6_K> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
#endif
void dequantize(std::span<const BlockQ8_K> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockIQ4_NL> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockMXFP4> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockIQ4_XS> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockTQ1_0> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockTQ2_0> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }

}  // namespace forge::kernels::simd
