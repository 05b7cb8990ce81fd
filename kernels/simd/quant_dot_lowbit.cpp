// Quantized dot products for the low-bit formats, simd backend: Q2_K, Q3_K, IQ4_NL, IQ4_XS,
// TQ1_0, TQ2_0 and MXFP4 (the other formats are in quant_dot.cpp). Each block's integer sums are
// computed with AVX2 byte products (vpmaddubsw, or AVX-512 VNNI's vpdpbusd where the build
// targets it) and are exactly the scalar kernel's; the float step is lane-wise as
// kernels/quant_dot.h allows (int32 lanes -> f32, multiply-added with the block's scale
// product, lanes summed once per row), so results differ from scalar by f32 rounding only.
// The tricks (pshufb as a 16-entry table, vpmaddwd applying 16-bit sub-block scales) follow
// ggml's x86 kernels (ggml-cpu/arch/x86/quants.c, MIT); the TQ1_0 trit extraction is our own.
#include "kernels/quant_dot.h"

#include "kernels/simd/quant_lanes_avx2.h"

#include <cstring>

// Where the build targets AVX-512 BW and VNNI, TQ2_0 takes 64 quants per step (measured: the
// same for Q2_K and Q3_K was no faster, or slower, on Zen 4, so they stay on 256 bits).
#if defined(__AVX512BW__) && defined(__AVX512VNNI__)
#define FORGE_LOWBIT_512 1
#endif

namespace forge::kernels::simd {

#if defined(FORGE_QUANT_LANES_AVX2)

namespace {

using namespace lanes256;

inline __m128i load16(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }

// Σ over each pair of u[i] * s[i] times the pair's 16-bit scale: the sub-block scale is applied
// to int16 pair sums (vpmaddwd), giving eight int32 lanes.
inline __m256i scaled_pairs(__m256i u, __m256i s, __m256i scale16) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), scale16);
}

// w * s for signed w with |w| ≤ 127, as vpmaddubsw wants it: |w| unsigned times s with w's sign.
// Exact for s in [-127, 127], the range of ggml's (and forge's) Q8_0 and Q8_K encoders.
inline __m256i signed_pairs(__m256i w, __m256i s) {
    return _mm256_maddubs_epi16(_mm256_abs_epi8(w), _mm256_sign_epi8(s, w));
}
inline __m256i signed_dot_groups(__m256i w, __m256i s) {
    return dot_groups(_mm256_abs_epi8(w), _mm256_sign_epi8(s, w));
}

// Σ a per int32 lane from Q8_K's bsums (the sums of each 16 quants, which the quantizer
// writes and the contract lets stand in for the quants' sum): lane k = bsums 2k + 2k+1.
inline __m256i activation_sums(const BlockQ8_K& a) {
    return _mm256_madd_epi16(load32(a.bsums.data()), _mm256_set1_epi16(1));
}

// Bits (shift .. shift+1) of each byte, as values 0..3.
inline __m256i two_bits(__m256i bytes, int shift) {
    return _mm256_and_si256(_mm256_srl_epi16(bytes, _mm_cvtsi32_si128(shift)), _mm256_set1_epi8(3));
}

// The 16-element K-quants (Q2_K, Q3_K) take their weights 32 at a time: bytes l of the 32-byte
// quant run hold elements 32v + l at bit 2(v % 4), for v = 0..7, i.e. sub-blocks 2v and 2v+1.
// The vpshufb control that spreads their scales (bytes 2v and 2v+1 of a 16-byte table) over
// the 16-bit lanes of such a vector, for vpmaddwd: low lane byte 2v, high lane byte 2v+1.
inline __m256i spread_scale16_control(int v) {
    return _mm256_set_m128i(_mm_set1_epi16(static_cast<short>(0x8000 | (2 * v + 1))),
                            _mm_set1_epi16(static_cast<short>(0x8000 | (2 * v))));
}

#if defined(FORGE_LOWBIT_512)
// The same runs 64 quants at a time: a zmm holding a 32-byte run in both halves (broadcast),
// shifted by 4m in the low half and 4m + 2 in the high one (vpsrlvw), gives elements
// 128h + 64m .. 128h + 64m + 63 of run h.
inline __m512i broadcast_run(const std::uint8_t* run) { return _mm512_broadcast_i64x4(load32(run)); }

inline __m512i halves512(int low, int high) {
    return _mm512_inserti64x4(_mm512_set1_epi16(static_cast<short>(low)), _mm256_set1_epi16(static_cast<short>(high)), 1);
}

inline __m512i two_bits_512(__m512i run, int m) {
    return _mm512_and_si512(_mm512_srlv_epi16(run, halves512(4 * m, 4 * m + 2)), _mm512_set1_epi8(3));
}

inline __m256i fold_halves(__m512i v) {
    return _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
}
#endif

}  // namespace

// ---- Q2_K: x = d * (s_j & 15) * q - dmin * (s_j >> 4), q in [0, 4) ---------------------------

namespace {

// Σ_j scale_j Σ q a over the block's sixteen sub-blocks, in int32 lanes; `scales` holds the
// sixteen four-bit scales as bytes. q ≤ 3: the byte pair sums of vpmaddubsw fit int16.
inline __m256i q2_k_scaled_sums(const BlockQ2_K& w, const BlockQ8_K& a, __m128i scales) {
    const __m256i scales2 = _mm256_broadcastsi128_si256(scales);
    __m256i sum = _mm256_setzero_si256();
    for (int v = 0; v < 8; ++v) {
        const __m256i q = two_bits(load32(w.qs.data() + 32 * (v / 4)), 2 * (v % 4));
        const __m256i aq = load32(a.qs.data() + 32 * v);
        sum = _mm256_add_epi32(sum, scaled_pairs(q, aq, _mm256_shuffle_epi8(scales2, spread_scale16_control(v))));
    }
    return sum;
}

}  // namespace

float dot(std::span<const BlockQ2_K> w, std::span<const BlockQ8_K> a) noexcept {
    const __m128i nibble = _mm_set1_epi8(0x0F);
    __m256 acc = _mm256_setzero_ps();
    for (std::size_t i = 0; i < w.size(); ++i) {
        const __m128i packed = load16(w[i].scales.data());
        const __m256i isum = q2_k_scaled_sums(w[i], a[i], _mm_and_si128(packed, nibble));
        // Σ_j min_j Σa_j: the sixteen mins times the sixteen bsums, pairwise into int32 lanes.
        const __m256i mins16 = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(packed, 4), nibble));
        const __m256i imin = _mm256_madd_epi16(mins16, load32(a[i].bsums.data()));
        acc = accumulate(acc, isum, a[i].d * half(w[i].d));
        acc = accumulate(acc, imin, -(a[i].d * half(w[i].dmin)));
    }
    return sum_lanes(acc);
}

// ---- Q3_K: x = d * (s_j - 32) * (q - 4), q = 2 low bits + hmask bit --------------------------

namespace {

// The sixteen scales s_j - 32 as signed bytes (the packing of unpack_scale_q3_k, 32 bits at a
// time: low nibbles of scales 0-7 and 8-15 in bytes 0-7, top two bits in bytes 8-11).
inline __m128i q3_k_scales(const std::array<std::uint8_t, 12>& packed) {
    std::uint32_t word[3];
    std::memcpy(word, packed.data(), 12);
    constexpr std::uint32_t kLow4 = 0x0F0F0F0F, kLow2 = 0x03030303;
    const std::uint32_t s0_3 = (word[0] & kLow4) | ((word[2] & kLow2) << 4);
    const std::uint32_t s4_7 = (word[1] & kLow4) | (((word[2] >> 2) & kLow2) << 4);
    const std::uint32_t s8_11 = ((word[0] >> 4) & kLow4) | (((word[2] >> 4) & kLow2) << 4);
    const std::uint32_t s12_15 = ((word[1] >> 4) & kLow4) | (((word[2] >> 6) & kLow2) << 4);
    const __m128i biased = _mm_setr_epi32(static_cast<int>(s0_3), static_cast<int>(s4_7), static_cast<int>(s8_11),
                                          static_cast<int>(s12_15));
    return _mm_sub_epi8(biased, _mm_set1_epi8(32));
}

// Σ_j (s_j - 32) Σ (low - four) a over the sixteen sub-blocks, in int32 lanes: four is 4 where
// the element's hmask bit is clear (bit v of hmask byte l for element 32v + l). |pair| ≤ 2 · 4 · 128
// fits int16 for both vpmaddubsw.
// 4 where bit v of the hmask byte is clear (the quant's -4), 0 where it is set.
inline __m256i q3_k_minus_four(__m256i hmask_clear, int v) {
    const __m256i shifted = v >= 2 ? _mm256_srl_epi16(hmask_clear, _mm_cvtsi32_si128(v - 2))
                                   : _mm256_sll_epi16(hmask_clear, _mm_cvtsi32_si128(2 - v));
    return _mm256_and_si256(shifted, _mm256_set1_epi8(4));
}

inline __m256i q3_k_scaled_sums(const BlockQ3_K& w, const BlockQ8_K& a) {
    const __m256i hmask_clear = _mm256_xor_si256(load32(w.hmask.data()), _mm256_set1_epi8(-1));
    // Scales as int16: scales 0-7 in both lanes for v < 4, scales 8-15 for v ≥ 4.
    const __m256i scales16 = _mm256_cvtepi8_epi16(q3_k_scales(w.scales));
    const __m256i halves[2] = {_mm256_permute2x128_si256(scales16, scales16, 0x00),
                               _mm256_permute2x128_si256(scales16, scales16, 0x11)};
    __m256i sum = _mm256_setzero_si256();
    for (int v = 0; v < 8; ++v) {
        const __m256i low = two_bits(load32(w.qs.data() + 32 * (v / 4)), 2 * (v % 4));
        const __m256i aq = load32(a.qs.data() + 32 * v);
        const __m256i pairs =
            _mm256_sub_epi16(_mm256_maddubs_epi16(low, aq), _mm256_maddubs_epi16(q3_k_minus_four(hmask_clear, v), aq));
        // Within a lane the int16 scales sit at bytes 2j, 2j+1: sub-blocks 2v, 2v+1 (mod 8).
        const int s = 2 * (v % 4);
        const __m256i control = _mm256_set_m128i(_mm_set1_epi16(static_cast<short>(((2 * s + 3) << 8) | (2 * s + 2))),
                                                 _mm_set1_epi16(static_cast<short>(((2 * s + 1) << 8) | (2 * s))));
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(pairs, _mm256_shuffle_epi8(halves[v / 4], control)));
    }
    return sum;
}

}  // namespace

float dot(std::span<const BlockQ3_K> w, std::span<const BlockQ8_K> a) noexcept {
    __m256 acc = _mm256_setzero_ps();
    for (std::size_t i = 0; i < w.size(); ++i) acc = accumulate(acc, q3_k_scaled_sums(w[i], a[i]), a[i].d * half(w[i].d));
    return sum_lanes(acc);
}

// ---- IQ4_NL and MXFP4 (Q8_0 activations): 32-element blocks of 4-bit table indices -----------

namespace {

// The levels of 32 indices: vpshufb looks each nibble up in a 16-entry table of signed bytes.
inline __m256i table_levels(const std::uint8_t* qs, const std::array<std::int8_t, 16>& table) {
    return _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(load16(table.data())), unpack_nibbles_16(qs));
}

// Each block's eight int32 lanes become f32 and are multiply-added with the block's scale
// product into two f32 accumulators (two chains: blocks alternate), summed once at the end
// (the lane-wise float step kernels/quant_dot.h allows; integers exactly as in scalar).
template <typename Block, typename WeightScale>
float table_dot(std::span<const Block> w, std::span<const BlockQ8_0> a, const std::array<std::int8_t, 16>& table,
                WeightScale weight_scale) {
    auto block = [&](std::size_t i, __m256 acc) {
        const __m256i lanes = signed_dot_groups(table_levels(w[i].qs.data(), table), load32(a[i].qs.data()));
        return accumulate(acc, lanes, weight_scale(w[i]) * half(a[i].d));
    };
    __m256 even = _mm256_setzero_ps(), odd = _mm256_setzero_ps();
    std::size_t i = 0;
    for (; i + 2 <= w.size(); i += 2) {
        even = block(i, even);
        odd = block(i + 1, odd);
    }
    if (i < w.size()) even = block(i, even);
    return sum_lanes(_mm256_add_ps(even, odd));
}

}  // namespace

float dot(std::span<const BlockIQ4_NL> w, std::span<const BlockQ8_0> a) noexcept {
    return table_dot(w, a, kIq4nlValues, [](const BlockIQ4_NL& b) { return half(b.d); });
}

// |level| ≤ 12: the byte products are far from any limit.
float dot(std::span<const BlockMXFP4> w, std::span<const BlockQ8_0> a) noexcept {
    return table_dot(w, a, kMxfp4Values, [](const BlockMXFP4& b) { return e8m0_to_f32_half(b.e); });
}

// ---- IQ4_XS: eight sub-blocks of 32 with six-bit scales ls_j - 32 -----------------------------

float dot(std::span<const BlockIQ4_XS> w, std::span<const BlockQ8_K> a) noexcept {
    __m256 acc = _mm256_setzero_ps();
    for (std::size_t i = 0; i < w.size(); ++i) {
        const auto& b = w[i];
        __m256i isum = _mm256_setzero_si256();
        for (int j = 0; j < 8; ++j) {
            const int low = (b.scales_l[static_cast<std::size_t>(j / 2)] >> (4 * (j % 2))) & 0xF;
            const int scale = (low | (((b.scales_h >> (2 * j)) & 3) << 4)) - 32;
            const __m256i pairs = signed_pairs(table_levels(b.qs.data() + 16 * j, kIq4nlValues), load32(a[i].qs.data() + 32 * j));
            isum = _mm256_add_epi32(isum, _mm256_madd_epi16(pairs, _mm256_set1_epi16(static_cast<short>(scale))));
        }
        acc = accumulate(acc, isum, a[i].d * half(b.d));
    }
    return sum_lanes(acc);
}

// ---- ternary formats: Σ (t - 1) a = Σ t a - Σ a with t in {0, 1, 2} --------------------------

namespace {

// Σ t a over the block (t the 2-bit codes 0..2), in int32 lanes; t ≤ 3 keeps vpmaddubsw exact.
#if defined(FORGE_LOWBIT_512)
inline __m256i tq2_0_code_sums(const BlockTQ2_0& w, const BlockQ8_K& a) {
    __m512i sum = _mm512_setzero_si512();
    for (int h = 0; h < 2; ++h) {
        const __m512i run = broadcast_run(w.qs.data() + 32 * h);
        for (int m = 0; m < 2; ++m) {
            sum = _mm512_dpbusd_epi32(sum, two_bits_512(run, m), _mm512_loadu_si512(a.qs.data() + 128 * h + 64 * m));
        }
    }
    return fold_halves(sum);
}
#else
inline __m256i tq2_0_code_sums(const BlockTQ2_0& w, const BlockQ8_K& a) {
    __m256i sum = _mm256_setzero_si256();
    for (int v = 0; v < 8; ++v) {
        const __m256i t = two_bits(load32(w.qs.data() + 32 * (v / 4)), 2 * (v % 4));
        sum = dot_groups_onto(sum, t, load32(a.qs.data() + 32 * v));
    }
    return sum;
}
#endif

}  // namespace

float dot(std::span<const BlockTQ2_0> w, std::span<const BlockQ8_K> a) noexcept {
    __m256 acc = _mm256_setzero_ps();
    for (std::size_t i = 0; i < w.size(); ++i) {
        const __m256i lanes = _mm256_sub_epi32(tq2_0_code_sums(w[i], a[i]), activation_sums(a[i]));
        acc = accumulate(acc, lanes, a[i].d * half(w[i].d));
    }
    return sum_lanes(acc);
}

namespace {

// 3y mod 256 in every byte.
inline __m256i times3(__m256i y) { return _mm256_add_epi8(_mm256_add_epi8(y, y), y); }

// TQ1_0 stores trits as a base-3 fraction: after multiplying a byte by 3^n (mod 256), its
// trit n is (3y) >> 8, i.e. [y ≥ 86] + [y ≥ 171]; unsigned saturating subtraction gives both.
inline __m256i leading_trit(__m256i y) {
    const __m256i one = _mm256_set1_epi8(1);
    return _mm256_add_epi8(_mm256_min_epu8(_mm256_subs_epu8(y, _mm256_set1_epi8(85)), one),
                           _mm256_min_epu8(_mm256_subs_epu8(y, _mm256_set1_epi8(static_cast<char>(170))), one));
}

}  // namespace

// Elements 0..159: trit n of qs[0..31] at 32n + m; 160..239: trit n of qs[32..47] at
// 160 + 16n + m; 240..255: trit n of qh[0..3] at 240 + 4n + m.
float dot(std::span<const BlockTQ1_0> w, std::span<const BlockQ8_K> a) noexcept {
    __m256 acc = _mm256_setzero_ps();
    for (std::size_t i = 0; i < w.size(); ++i) {
        const std::int8_t* aq = a[i].qs.data();
        __m256i tsum = _mm256_setzero_si256();
        auto add = [&](__m256i scaled_bytes, int offset) {
            tsum = dot_groups_onto(tsum, leading_trit(scaled_bytes), load32(aq + offset));
        };
        __m256i y = load32(w[i].qs.data());
        for (int n = 0; n < 5; ++n, y = times3(y)) add(y, 32 * n);
        // qs[32..47] in the low lane, qh (four times) in the high lane, times 1, 3, 9, 27, 81.
        std::uint32_t qh;
        std::memcpy(&qh, w[i].qh.data(), 4);
        const __m256i x1 = _mm256_set_m128i(_mm_set1_epi32(static_cast<int>(qh)), load16(w[i].qs.data() + 32));
        const __m256i x3 = times3(x1), x9 = times3(x3), x27 = times3(x9), x81 = times3(x27);
        add(_mm256_permute2x128_si256(x1, x3, 0x20), 160);   // trits 0 and 1 of qs[32..47]
        add(_mm256_permute2x128_si256(x9, x27, 0x20), 192);  // trits 2 and 3
        // Trit 4 of qs[32..47], then dword n of the high lane from qh · 3^n: trit n of qh.
        const __m256i last = _mm256_blend_epi32(
            _mm256_blend_epi32(_mm256_blend_epi32(_mm256_blend_epi32(x81, x1, 0x10), x3, 0x20), x9, 0x40), x27, 0x80);
        add(last, 224);
        acc = accumulate(acc, _mm256_sub_epi32(tsum, activation_sums(a[i])), a[i].d * half(w[i].d));
    }
    return sum_lanes(acc);
}

#else  // no AVX2: the scalar kernels are the fast ones too

float dot(std::span<const BlockIQ4_NL> w, std::span<const BlockQ8_0> a) noexcept { return scalar::dot(w, a); }
float dot(std::span<const BlockMXFP4> w, std::span<const BlockQ8_0> a) noexcept { return scalar::dot(w, a); }
float dot(std::span<const BlockQ2_K> w, std::span<const BlockQ8_K> a) noexcept { return scalar::dot(w, a); }
float dot(std::span<const BlockQ3_K> w, std::span<const BlockQ8_K> a) noexcept { return scalar::dot(w, a); }
float dot(std::span<const BlockIQ4_XS> w, std::span<const BlockQ8_K> a) noexcept { return scalar::dot(w, a); }
float dot(std::span<const BlockTQ1_0> w, std::span<const BlockQ8_K> a) noexcept { return scalar::dot(w, a); }
float dot(std::span<const BlockTQ2_0> w, std::span<const BlockQ8_K> a) noexcept { return scalar::dot(w, a); }

#endif

}  // namespace forge::kernels::simd
