// Quantized dot products, simd backend: the integer part of each block on AVX2 (and
// AVX-512 VNNI's vpdpbusd where the build targets it), exact as the specification demands;
// the float part lane-wise (kernels/quant_dot.h): each block's int32 lanes become f32 and
// are multiply-added with the block's scale product into a vector accumulator, summed across
// lanes once at the end. Q8_0 and Q4_0 take two blocks per zmm on AVX-512 (quant_lanes.h,
// shared with the GEMM). The byte-product tricks follow ggml's x86 kernels
// (ggml-cpu/arch/x86/quants.c, MIT).
#include "kernels/quant_dot.h"
#include "kernels/simd/quant_lanes.h"
#include "kernels/simd/quant_lanes_avx2.h"

#include <cstring>

namespace forge::kernels::simd {

#if defined(FORGE_QUANT_LANES_AVX2)

namespace {

using namespace lanes256;

// Decoding streams each weight row once from memory: asking for the bytes 1 KiB ahead (the
// next rows, past a row's end) keeps more loads in flight than the hardware prefetcher
// does on rows of a few hundred bytes (up to 2x on Q4_0 rows in a one-thread benchmark on a
// busy machine; never slower). No effect on results.
template <typename Block>
inline void prefetch_ahead(const Block* b) {
    constexpr int kAhead = 1024;
    const char* p = reinterpret_cast<const char*>(b) + kAhead;
    for (std::size_t line = 0; line < sizeof(Block) * (Block::kSize == 32 ? 2 : 1); line += 64) {
        _mm_prefetch(p + line, _MM_HINT_T0);
    }
}

// One 64-element chunk of a Q4_K / Q5_K block: `low` and `high` hold the quants of sub-blocks
// 2c and 2c + 1; their products with the activations go into isum times each sub-block's
// scale, and the activations' sums times its min into imin.
inline void add_k4_chunk(__m256i low, __m256i high, const BlockQ8_K& a, int chunk,
                         const std::array<std::uint8_t, 12>& scales, __m256i& isum, __m256i& imin) {
    const __m256i ones = _mm256_set1_epi8(1);
    const __m256i a0 = load32(a.qs.data() + 64 * chunk);
    const __m256i a1 = load32(a.qs.data() + 64 * chunk + 32);
    const auto s0 = unpack_scale_min_k4(2 * chunk, scales);
    const auto s1 = unpack_scale_min_k4(2 * chunk + 1, scales);
    isum = _mm256_add_epi32(isum, _mm256_mullo_epi32(dot_groups(low, a0), _mm256_set1_epi32(s0.scale)));
    isum = _mm256_add_epi32(isum, _mm256_mullo_epi32(dot_groups(high, a1), _mm256_set1_epi32(s1.scale)));
    imin = _mm256_add_epi32(imin, _mm256_mullo_epi32(dot_groups(ones, a0), _mm256_set1_epi32(s0.min)));
    imin = _mm256_add_epi32(imin, _mm256_mullo_epi32(dot_groups(ones, a1), _mm256_set1_epi32(s1.min)));
}

// The 32 bits of a Q5 block's qh as 32 bytes: 0x10 where the bit is set (the quant's bit 4).
inline __m256i q5_high_bits(const std::array<std::uint8_t, 4>& qh_bytes) {
    std::uint32_t qh;
    std::memcpy(&qh, qh_bytes.data(), 4);
    // Byte i of the result looks at byte i / 8 of qh, then at bit i % 8 of it.
    const __m256i spread = _mm256_shuffle_epi8(
        _mm256_set1_epi32(static_cast<int>(qh)),
        _mm256_setr_epi64x(0x0000000000000000, 0x0101010101010101, 0x0202020202020202, 0x0303030303030303));
    const __m256i bit = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ull));
    const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit);
    return _mm256_and_si256(set, _mm256_set1_epi8(0x10));
}

// A Q5 block's 32 quants in [0, 32).
template <typename Block>
inline __m256i unpack_q5(const Block& b) {
    return _mm256_or_si256(unpack_nibbles_16(b.qs.data()), q5_high_bits(b.qh));
}

}  // namespace

#if defined(FORGE_QUANT_LANES_512)

float dot(std::span<const BlockQ8_0> w, std::span<const BlockQ8_0> a) noexcept {
    __m512 acc = _mm512_setzero_ps();
    std::size_t i = 0;
    for (; i + 1 < w.size(); i += 2) {
        prefetch_ahead(w.data() + i);
        const __m512i lanes = lanes::q8_lanes(lanes::load_pair(w[i].qs.data(), w[i + 1].qs.data()),
                                              lanes::load_pair(a[i].qs.data(), a[i + 1].qs.data()));
        acc = lanes::accumulate(acc, lanes, lanes::scale_pair(half(w[i].d) * half(a[i].d), half(w[i + 1].d) * half(a[i + 1].d)));
    }
    if (i < w.size()) {
        const __m512i lanes = lanes::q8_lanes(lanes::load_single(w[i].qs.data()), lanes::load_single(a[i].qs.data()));
        acc = lanes::accumulate(acc, lanes, lanes::scale_pair(half(w[i].d) * half(a[i].d), 0.0f));
    }
    return lanes::sum_lanes(acc);
}

float dot(std::span<const BlockQ4_0> w, std::span<const BlockQ8_0> a) noexcept {
    const __m512i eight = _mm512_set1_epi8(8), zero = _mm512_setzero_si512();
    __m512 acc = _mm512_setzero_ps();
    std::size_t i = 0;
    // Σ (q - 8) a = Σ q a - Σ 8 a, both with non-negative first operands.
    for (; i + 1 < w.size(); i += 2) {
        prefetch_ahead(w.data() + i);
        const __m512i aq = lanes::load_pair(a[i].qs.data(), a[i + 1].qs.data());
        const __m512i q = lanes::unpack_nibble_pair(w[i].qs.data(), w[i + 1].qs.data());
        const __m512i lanes = lanes::dot_groups_onto(_mm512_sub_epi32(zero, lanes::dot_groups(eight, aq)), q, aq);
        acc = lanes::accumulate(acc, lanes, lanes::scale_pair(half(w[i].d) * half(a[i].d), half(w[i + 1].d) * half(a[i + 1].d)));
    }
    if (i < w.size()) {
        const __m512i aq = lanes::load_single(a[i].qs.data());
        const __m512i lanes = lanes::dot_groups_onto(_mm512_sub_epi32(zero, lanes::dot_groups(eight, aq)),
                                                     lanes::unpack_nibble_single(w[i].qs.data()), aq);
        acc = lanes::accumulate(acc, lanes, lanes::scale_pair(half(w[i].d) * half(a[i].d), 0.0f));
    }
    return lanes::sum_lanes(acc);
}

#else

float dot(std::span<const BlockQ8_0> w, std::span<const BlockQ8_0> a) noexcept {
    __m256 acc = _mm256_setzero_ps();
    for (std::size_t i = 0; i < w.size(); ++i) {
        const __m256i wq = load32(w[i].qs.data());
        const __m256i aq = load32(a[i].qs.data());
        // |w| * (a with w's sign) = w * a, with the unsigned operand first as vpmaddubsw wants.
        acc = accumulate(acc, dot_groups(_mm256_abs_epi8(wq), _mm256_sign_epi8(aq, wq)), half(w[i].d) * half(a[i].d));
    }
    return sum_lanes(acc);
}

float dot(std::span<const BlockQ4_0> w, std::span<const BlockQ8_0> a) noexcept {
    const __m256i eight = _mm256_set1_epi8(8);
    __m256 acc = _mm256_setzero_ps();
    for (std::size_t i = 0; i < w.size(); ++i) {
        const __m256i q = unpack_nibbles_16(w[i].qs.data());
        const __m256i aq = load32(a[i].qs.data());
        // Σ (q - 8) a = Σ q a - Σ 8 a, both with non-negative first operands.
        const __m256i lanes = _mm256_sub_epi32(dot_groups(q, aq), dot_groups(eight, aq));
        acc = accumulate(acc, lanes, half(w[i].d) * half(a[i].d));
    }
    return sum_lanes(acc);
}

#endif

float dot(std::span<const BlockQ5_0> w, std::span<const BlockQ8_0> a) noexcept {
    const __m256i sixteen = _mm256_set1_epi8(16);
    __m256 acc = _mm256_setzero_ps();
    for (std::size_t i = 0; i < w.size(); ++i) {
        const __m256i aq = load32(a[i].qs.data());
        const __m256i lanes = _mm256_sub_epi32(dot_groups(unpack_q5(w[i]), aq), dot_groups(sixteen, aq));
        acc = accumulate(acc, lanes, half(w[i].d) * half(a[i].d));
    }
    return sum_lanes(acc);
}

// Formats with a min: Σ q a times dw·da and Σ a times m·da, two terms per block.
template <typename Block, typename Unpack>
float dot_with_min(std::span<const Block> w, std::span<const BlockQ8_0> a, Unpack unpack) {
    const __m256i ones = _mm256_set1_epi8(1);
    __m256 acc = _mm256_setzero_ps();
    for (std::size_t i = 0; i < w.size(); ++i) {
        const __m256i aq = load32(a[i].qs.data());
        const float da = half(a[i].d);
        acc = accumulate(acc, dot_groups(unpack(w[i]), aq), half(w[i].d) * da);
        acc = accumulate(acc, dot_groups(ones, aq), half(w[i].m) * da);
    }
    return sum_lanes(acc);
}

float dot(std::span<const BlockQ4_1> w, std::span<const BlockQ8_0> a) noexcept {
    return dot_with_min(w, a, [](const BlockQ4_1& b) { return unpack_nibbles_16(b.qs.data()); });
}

float dot(std::span<const BlockQ5_1> w, std::span<const BlockQ8_0> a) noexcept {
    return dot_with_min(w, a, [](const BlockQ5_1& b) { return unpack_q5(b); });
}

float dot(std::span<const BlockQ8_K> w, std::span<const BlockQ8_K> a) noexcept {
    __m256 acc = _mm256_setzero_ps();
    for (std::size_t i = 0; i < w.size(); ++i) {
        __m256i lanes = _mm256_setzero_si256();
        for (int j = 0; j < 256; j += 32) {
            const __m256i wq = load32(w[i].qs.data() + j);
            const __m256i aq = load32(a[i].qs.data() + j);
            lanes = _mm256_add_epi32(lanes, dot_groups(_mm256_abs_epi8(wq), _mm256_sign_epi8(aq, wq)));
        }
        acc = accumulate(acc, lanes, a[i].d * w[i].d);
    }
    return sum_lanes(acc);
}

float dot(std::span<const BlockQ5_K> w, std::span<const BlockQ8_K> a) noexcept {
    const __m256i mask = _mm256_set1_epi8(0x0F);
    const __m256i one = _mm256_set1_epi8(1);
    __m256 acc = _mm256_setzero_ps();
    __m256 acc_min = _mm256_setzero_ps();
    for (std::size_t i = 0; i < w.size(); ++i) {
        prefetch_ahead(w.data() + i);
        __m256i isum = _mm256_setzero_si256();
        __m256i imin = _mm256_setzero_si256();
        const __m256i qh = load32(w[i].qh.data());
        for (int chunk = 0; chunk < 4; ++chunk) {
            const __m256i bytes = load32(w[i].qs.data() + 32 * chunk);
            // Bit 2c of qh byte l is bit 4 of element 64c + l, bit 2c+1 that of element 64c + 32 + l.
            const __m256i h0 = _mm256_and_si256(_mm256_srl_epi16(qh, _mm_cvtsi32_si128(2 * chunk)), one);
            const __m256i h1 = _mm256_and_si256(_mm256_srl_epi16(qh, _mm_cvtsi32_si128(2 * chunk + 1)), one);
            const __m256i low = _mm256_or_si256(_mm256_and_si256(bytes, mask), _mm256_slli_epi16(h0, 4));
            const __m256i high = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(bytes, 4), mask), _mm256_slli_epi16(h1, 4));
            add_k4_chunk(low, high, a[i], chunk, w[i].scales, isum, imin);
        }
        acc = accumulate(acc, isum, a[i].d * half(w[i].d));
        acc_min = accumulate(acc_min, imin, a[i].d * half(w[i].dmin));
    }
    return sum_lanes(_mm256_sub_ps(acc, acc_min));
}

float dot(std::span<const BlockQ4_K> w, std::span<const BlockQ8_K> a) noexcept {
    const __m256i mask = _mm256_set1_epi8(0x0F);
    __m256 acc = _mm256_setzero_ps();
    __m256 acc_min = _mm256_setzero_ps();
    for (std::size_t i = 0; i < w.size(); ++i) {
        prefetch_ahead(w.data() + i);
        __m256i isum = _mm256_setzero_si256();
        __m256i imin = _mm256_setzero_si256();
        for (int chunk = 0; chunk < 4; ++chunk) {
            const __m256i bytes = load32(w[i].qs.data() + 32 * chunk);
            const __m256i low = _mm256_and_si256(bytes, mask);
            const __m256i high = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), mask);
            add_k4_chunk(low, high, a[i], chunk, w[i].scales, isum, imin);
        }
        acc = accumulate(acc, isum, a[i].d * half(w[i].d));
        acc_min = accumulate(acc_min, imin, a[i].d * half(w[i].dmin));
    }
    return sum_lanes(_mm256_sub_ps(acc, acc_min));
}

float dot(std::span<const BlockQ6_K> w, std::span<const BlockQ8_K> a) noexcept {
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    const __m256i low2 = _mm256_set1_epi8(0x03);
    const __m256i offset = _mm256_set1_epi8(32);
    __m256 acc = _mm256_setzero_ps();
    for (std::size_t i = 0; i < w.size(); ++i) {
        prefetch_ahead(w.data() + i);
        __m256i isum = _mm256_setzero_si256();
        for (int h = 0; h < 2; ++h) {
            const __m256i ql0 = load32(w[i].ql.data() + 64 * h);
            const __m256i ql1 = load32(w[i].ql.data() + 64 * h + 32);
            const __m256i qh = load32(w[i].qh.data() + 32 * h);
            // Elements 128h + 32k + l for k = 0..3 (see the scalar decoder for the packing).
            const __m256i q[4] = {
                _mm256_or_si256(_mm256_and_si256(ql0, low4), _mm256_slli_epi16(_mm256_and_si256(qh, low2), 4)),
                _mm256_or_si256(_mm256_and_si256(ql1, low4),
                                _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2), low2), 4)),
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), low4),
                                _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 4), low2), 4)),
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), low4),
                                _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 6), low2), 4)),
            };
            for (int k = 0; k < 4; ++k) {
                const __m256i aq = load32(a[i].qs.data() + 128 * h + 32 * k);
                // Σ (q - 32) a per group of four; lanes 0-3 are sub-block 2k, lanes 4-7 sub-block 2k+1.
                const __m256i lanes = _mm256_sub_epi32(dot_groups(q[k], aq), dot_groups(offset, aq));
                const int sub = 8 * h + 2 * k;
                const int s0 = w[i].scales[static_cast<std::size_t>(sub)];
                const int s1 = w[i].scales[static_cast<std::size_t>(sub + 1)];
                isum = _mm256_add_epi32(isum, _mm256_mullo_epi32(lanes, _mm256_setr_epi32(s0, s0, s0, s0, s1, s1, s1, s1)));
            }
        }
        acc = accumulate(acc, isum, a[i].d * half(w[i].d));
    }
    return sum_lanes(acc);
}

#else  // no AVX2: the scalar kernels are the fast ones too

float dot(std::span<const BlockQ8_0> w, std::span<const BlockQ8_0> a) noexcept { return scalar::dot(w, a); }
float dot(std::span<const BlockQ4_0> w, std::span<const BlockQ8_0> a) noexcept { return scalar::dot(w, a); }
float dot(std::span<const BlockQ4_K> w, std::span<const BlockQ8_K> a) noexcept { return scalar::dot(w, a); }
float dot(std::span<const BlockQ6_K> w, std::span<const BlockQ8_K> a) noexcept { return scalar::dot(w, a); }
float dot(std::span<const BlockQ4_1> w, std::span<const BlockQ8_0> a) noexcept { return scalar::dot(w, a); }
float dot(std::span<const BlockQ5_0> w, std::span<const BlockQ8_0> a) noexcept { return scalar::dot(w, a); }
float dot(std::span<const BlockQ5_1> w, std::span<const BlockQ8_0> a) noexcept { return scalar::dot(w, a); }
float dot(std::span<const BlockQ5_K> w, std::span<const BlockQ8_K> a) noexcept { return scalar::dot(w, a); }
float dot(std::span<const BlockQ8_K> w, std::span<const BlockQ8_K> a) noexcept { return scalar::dot(w, a); }

#endif

}  // namespace forge::kernels::simd
