// The interleaved Q4_K / Q5_K / Q6_K layout and its AVX-512 VNNI GEMM
// (kernels/quant_gemm_interleaved_k.h describes both). The register tile is one group of 16
// weight rows x up to kTileRows activation rows: each 32-element slice of a super-block is
// loaded and unpacked once into 8 operands and multiplied with every activation row of the
// tile; each row's integer sum stays in a register for the whole super-block, and the float
// work (two fused multiply-adds per super-block and row) happens once per super-block.
// With one activation row (decoding) the same kernel streams each group front to back.
// ggml repacks Q4_K into 8-row groups for its x86 gemm (ggml-cpu/repack.cpp, MIT); see
// docs/THIRD-PARTY-NOTICES.md.
#include "kernels/quant_gemm_interleaved_k.h"

// The layout is the AVX2 kernel's too (quant_gemm_interleaved_k_avx2.cpp); the kernel below
// only where the build has AVX-512 VNNI.
#if defined(FORGE_INTERLEAVED_K_GEMM)

#include "kernels/simd/quant_interleaved_k_layout.h"
#include "kernels/simd/quant_lanes.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>

namespace forge::kernels::simd {

namespace {

using interleaved_k::high_run;
using interleaved_k::high_shift;
using interleaved_k::kHighBits;
using interleaved_k::kQuadBytes;
using interleaved_k::kSliceBytes;
using interleaved_k::kSlices;

constexpr int kOperands = 8;    // quant lanes of a slice: operand i meets activation bytes 4i..4i+3
constexpr int kTileRows = kInterleavedTileRows;

using Codes = std::array<std::uint8_t, kSuperBlock>;  // a super-block's unsigned element codes

// ---- the formats: element codes, their scales, where things lie in a group's super-block ----

// Q4_K and Q5_K: eight sub-blocks of 32, six-bit scales and mins.
template <typename Block>
struct KWithMins {
    static constexpr std::size_t kScales = interleaved_k::kScales<Block>;
    static constexpr std::size_t kMins = interleaved_k::kMins<Block>;
    static constexpr std::size_t kD = interleaved_k::kD<Block>;

    static Codes codes(const Block& b) {
        Codes q{};
        for (int c = 0; c < 4; ++c) {
            for (int l = 0; l < 32; ++l) {
                const auto byte = b.qs[static_cast<std::size_t>(32 * c + l)];
                q[static_cast<std::size_t>(64 * c + l)] = byte & 0xF;
                q[static_cast<std::size_t>(64 * c + 32 + l)] = byte >> 4;
                if constexpr (std::is_same_v<Block, BlockQ5_K>) {
                    const auto high = b.qh[static_cast<std::size_t>(l)];
                    q[static_cast<std::size_t>(64 * c + l)] |= ((high >> (2 * c)) & 1) << 4;
                    q[static_cast<std::size_t>(64 * c + 32 + l)] |= ((high >> (2 * c + 1)) & 1) << 4;
                }
            }
        }
        return q;
    }

    static void set_codes(const Codes& q, Block& b) {
        if constexpr (std::is_same_v<Block, BlockQ5_K>) b.qh.fill(0);
        for (int c = 0; c < 4; ++c) {
            for (int l = 0; l < 32; ++l) {
                const int low = q[static_cast<std::size_t>(64 * c + l)], high = q[static_cast<std::size_t>(64 * c + 32 + l)];
                b.qs[static_cast<std::size_t>(32 * c + l)] = static_cast<std::uint8_t>((low & 0xF) | ((high & 0xF) << 4));
                if constexpr (std::is_same_v<Block, BlockQ5_K>) {
                    b.qh[static_cast<std::size_t>(l)] |= static_cast<std::uint8_t>(((low >> 4) << (2 * c)) | ((high >> 4) << (2 * c + 1)));
                }
            }
        }
    }

    static void write_meta(const Block& b, int r, std::byte* sb) {
        for (int j = 0; j < 8; ++j) {
            const ScaleMin sm = unpack_scale_min_k4(j, b.scales);
            sb[kScales + static_cast<std::size_t>(16 * j + r)] = std::byte{sm.scale};
            sb[kMins + static_cast<std::size_t>(32 * (j / 2) + 2 * r + j % 2)] = std::byte{sm.min};
        }
        std::memcpy(sb + kD + 2 * static_cast<std::size_t>(r), &b.d, 2);
        std::memcpy(sb + kD + 32 + 2 * static_cast<std::size_t>(r), &b.dmin, 2);
    }

    // The inverse of unpack_scale_min_k4: the twelve bytes hold every bit of the six-bit values.
    static void read_meta(const std::byte* sb, int r, Block& b) {
        std::array<std::uint8_t, 8> sc{}, mn{};
        for (int j = 0; j < 8; ++j) {
            sc[static_cast<std::size_t>(j)] = std::to_integer<std::uint8_t>(sb[kScales + static_cast<std::size_t>(16 * j + r)]);
            mn[static_cast<std::size_t>(j)] = std::to_integer<std::uint8_t>(sb[kMins + static_cast<std::size_t>(32 * (j / 2) + 2 * r + j % 2)]);
        }
        for (std::size_t j = 0; j < 4; ++j) {
            b.scales[j] = static_cast<std::uint8_t>(sc[j] | ((sc[j + 4] >> 4) << 6));
            b.scales[j + 4] = static_cast<std::uint8_t>(mn[j] | ((mn[j + 4] >> 4) << 6));
            b.scales[j + 8] = static_cast<std::uint8_t>((sc[j + 4] & 0xF) | ((mn[j + 4] & 0xF) << 4));
        }
        std::memcpy(&b.d, sb + kD + 2 * static_cast<std::size_t>(r), 2);
        std::memcpy(&b.dmin, sb + kD + 32 + 2 * static_cast<std::size_t>(r), 2);
    }
};

// Q6_K: sixteen sub-blocks of 16, int8 scales, codes biased by 32.
struct Q6KLayout {
    static constexpr std::size_t kScales = interleaved_k::kScales<BlockQ6_K>;
    static constexpr std::size_t kD = interleaved_k::kD<BlockQ6_K>;

    static Codes codes(const BlockQ6_K& b) {
        Codes q{};
        for (int h = 0; h < 2; ++h) {
            const std::uint8_t* ql = b.ql.data() + 64 * h;
            const std::uint8_t* qh = b.qh.data() + 32 * h;
            std::uint8_t* out = q.data() + 128 * h;
            for (int l = 0; l < 32; ++l) {
                out[l] = static_cast<std::uint8_t>((ql[l] & 0xF) | ((qh[l] & 3) << 4));
                out[l + 32] = static_cast<std::uint8_t>((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4));
                out[l + 64] = static_cast<std::uint8_t>((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4));
                out[l + 96] = static_cast<std::uint8_t>((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4));
            }
        }
        return q;
    }

    static void set_codes(const Codes& q, BlockQ6_K& b) {
        for (int h = 0; h < 2; ++h) {
            std::uint8_t* ql = b.ql.data() + 64 * h;
            std::uint8_t* qh = b.qh.data() + 32 * h;
            const std::uint8_t* in = q.data() + 128 * h;
            for (int l = 0; l < 32; ++l) {
                ql[l] = static_cast<std::uint8_t>((in[l] & 0xF) | ((in[l + 64] & 0xF) << 4));
                ql[l + 32] = static_cast<std::uint8_t>((in[l + 32] & 0xF) | ((in[l + 96] & 0xF) << 4));
                qh[l] = static_cast<std::uint8_t>((in[l] >> 4) | ((in[l + 32] >> 4) << 2) | ((in[l + 64] >> 4) << 4) |
                                                  ((in[l + 96] >> 4) << 6));
            }
        }
    }

    static void write_meta(const BlockQ6_K& b, int r, std::byte* sb) {
        for (int j = 0; j < 16; ++j) {
            sb[kScales + static_cast<std::size_t>(16 * j + r)] = static_cast<std::byte>(b.scales[static_cast<std::size_t>(j)]);
        }
        std::memcpy(sb + kD + 2 * static_cast<std::size_t>(r), &b.d, 2);
    }

    static void read_meta(const std::byte* sb, int r, BlockQ6_K& b) {
        for (int j = 0; j < 16; ++j) {
            b.scales[static_cast<std::size_t>(j)] = static_cast<std::int8_t>(sb[kScales + static_cast<std::size_t>(16 * j + r)]);
        }
        std::memcpy(&b.d, sb + kD + 2 * static_cast<std::size_t>(r), 2);
    }
};

template <typename Block>
using Layout = std::conditional_t<std::is_same_v<Block, BlockQ6_K>, Q6KLayout, KWithMins<Block>>;

// ---- repacking ------------------------------------------------------------------------------

template <typename Block>
void write_row(const Block& b, int r, std::byte* sb) {
    const Codes q = Layout<Block>::codes(b);
    for (int s = 0; s < kSlices; ++s) {
        for (int t = 0; t < 4; ++t) {
            for (int k = 0; k < 4; ++k) {
                const int e = 32 * s + 4 * t + k;
                const auto low = static_cast<unsigned>(q[static_cast<std::size_t>(e)] & 0xF);
                const auto high = static_cast<unsigned>(q[static_cast<std::size_t>(e + 16)] & 0xF);
                sb[static_cast<std::size_t>(kSliceBytes * s + kQuadBytes * t + 4 * r + k)] = static_cast<std::byte>(low | (high << 4));
            }
        }
        if constexpr (kHighBits<Block> > 0) {
            // Each byte of a run gathers the high bits of several operands: built in a register
            // and stored once (byte stores may alias anything, so storing bit by bit is slow).
            constexpr int runs = kHighBits<Block>;
            for (int k = 0; k < 4; ++k) {
                unsigned byte[runs] = {};
                for (int i = 0; i < kOperands; ++i) {
                    const auto top = static_cast<unsigned>(q[static_cast<std::size_t>(32 * s + 4 * i + k)] >> 4);
                    byte[runs == 1 ? 0 : i / 4] |= top << high_shift<Block>(i);
                }
                for (int h = 0; h < runs; ++h) {
                    sb[high_run<Block>(s, 4 * h) + static_cast<std::size_t>(4 * r + k)] = static_cast<std::byte>(byte[h]);
                }
            }
        }
    }
    Layout<Block>::write_meta(b, r, sb);
}

template <typename Block>
void read_row(const std::byte* sb, int r, Block& b) {
    Codes q{};
    for (int s = 0; s < kSlices; ++s) {
        for (int t = 0; t < 4; ++t) {
            for (int k = 0; k < 4; ++k) {
                const int e = 32 * s + 4 * t + k;
                const auto byte = std::to_integer<unsigned>(sb[static_cast<std::size_t>(kSliceBytes * s + kQuadBytes * t + 4 * r + k)]);
                q[static_cast<std::size_t>(e)] = static_cast<std::uint8_t>(byte & 0xF);
                q[static_cast<std::size_t>(e + 16)] = static_cast<std::uint8_t>(byte >> 4);
            }
        }
        if constexpr (kHighBits<Block> > 0) {
            constexpr unsigned mask = (1u << kHighBits<Block>) - 1;
            for (int i = 0; i < kOperands; ++i) {
                for (int k = 0; k < 4; ++k) {
                    const auto byte = std::to_integer<unsigned>(sb[high_run<Block>(s, i) + static_cast<std::size_t>(4 * r + k)]);
                    q[static_cast<std::size_t>(32 * s + 4 * i + k)] |= static_cast<std::uint8_t>(((byte >> high_shift<Block>(i)) & mask) << 4);
                }
            }
        }
    }
    Layout<Block>::set_codes(q, b);
    Layout<Block>::read_meta(sb, r, b);
}

template <typename Block>
void interleave_rows(const Block* w, std::int64_t n, std::int64_t blocks, std::byte* out) {
    constexpr std::size_t sb_bytes = interleaved_k_superblock_bytes<Block>();
    const std::size_t group_bytes = interleaved_k_group_bytes<Block>(blocks);
    for (std::int64_t r0 = 0; r0 < n; r0 += kInterleave) {
        std::byte* group = out + static_cast<std::size_t>(r0 / kInterleave) * group_bytes;
        std::memset(group, 0, group_bytes);
        for (std::int64_t r = r0; r < std::min(n, r0 + kInterleave); ++r) {
            for (std::int64_t b = 0; b < blocks; ++b) {
                write_row(w[r * blocks + b], static_cast<int>(r - r0), group + static_cast<std::size_t>(b) * sb_bytes);
            }
        }
    }
}

template <typename Block>
void deinterleave(const std::byte* group, std::int64_t blocks, int r, Block* out) {
    for (std::int64_t b = 0; b < blocks; ++b) {
        read_row(group + static_cast<std::size_t>(b) * interleaved_k_superblock_bytes<Block>(), r, out[b]);
    }
}

// ---- the kernel -----------------------------------------------------------------------------
#if defined(FORGE_INTERLEAVED_GEMM)

__m512i shift_bits(__m512i v, int left) {
    return left >= 0 ? _mm512_sll_epi32(v, _mm_cvtsi32_si128(left)) : _mm512_srl_epi32(v, _mm_cvtsi32_si128(-left));
}

// Each byte's high nibble moved to its low nibble (the byte's upper half is garbage, masked
// off afterwards). The kernel is bound by port 0, which runs vpdpbusd, vpmulld and the
// 512-bit shifts; with AVX-512 VBMI, vpmultishiftqb (port 5) picks bits 4..11 of every byte
// instead of a 16-bit shift.
__m512i high_nibbles(__m512i q) {
#if defined(__AVX512VBMI__)
    const __m512i from_bit_4 = _mm512_set1_epi64(0x3C34'2C24'1C14'0C04);  // byte j: bits 8j+4 ..
    return _mm512_multishift_epi64_epi8(from_bit_4, q);
#else
    return _mm512_srli_epi16(q, 4);
#endif
}

// Slice s's 8 operands: the nibbles, then (Q5_K, Q6_K) the high bits moved to bit 4 up.
// Always inlined: GCC 12 made Q6_K's a call from every tile, its 8 operands passing through
// memory on each slice.
template <typename Block>
[[gnu::always_inline]] inline void load_operands(const std::byte* sb, int s, __m512i (&w)[kOperands]) {
    const __m512i low_nibble = _mm512_set1_epi8(0x0F);
    for (int t = 0; t < 4; ++t) {
        const __m512i q = _mm512_load_si512(sb + kSliceBytes * s + kQuadBytes * t);
        w[t] = _mm512_and_si512(q, low_nibble);
        w[t + 4] = _mm512_and_si512(high_nibbles(q), low_nibble);
    }
    if constexpr (kHighBits<Block> > 0) {
        const __m512i mask = _mm512_set1_epi8(static_cast<char>(((1 << kHighBits<Block>) - 1) << 4));
        for (int i = 0; i < kOperands; ++i) {
            const __m512i run = _mm512_load_si512(sb + high_run<Block>(s, i));
            // w | (shifted & mask): the truth table 0xF8 of vpternlogd.
            w[i] = _mm512_ternarylogic_epi32(w[i], shift_bits(run, 4 - high_shift<Block>(i)), mask, 0xF8);
        }
    }
}

// Σ over operands [first, first + count) of operand x activation bytes, onto `sum`.
template <int First, int Count>
__m512i dot_operands(__m512i sum, const __m512i (&w)[kOperands], const std::int8_t* a) {
    for (int i = First; i < First + Count; ++i) {
        sum = lanes::dot_groups_broadcast(sum, w[i], a + 4 * i);
    }
    return sum;
}

// Decoding (one tile of activation rows) streams the weights once from memory: ask for them
// kAhead bytes ahead, into L2 (T1), a few lines before each slice rather than a whole
// super-block's 37-53 lines at once. One-thread decode of a model-sized weight set
// (tools/bench_decode --cpu-time, Q4_0's unchanged kernel as the reference in each run, a
// loaded machine): this streamed Q4_K and Q6_K about 10% faster than T0 per super-block at
// 4 KiB; T0 per slice and T1 at 2 KiB were no faster, NTA 25% slower. (Likely why: a T0
// request holds an L1 fill buffer until the line arrives, and those few buffers cap the lines
// in flight; perf put three quarters of the kernel's samples just after a prefetch.)
constexpr std::size_t kAhead = 6144;

template <typename Block>
void prefetch_ahead(const std::byte* sb, int s) {
    constexpr std::size_t lines = interleaved_k_superblock_bytes<Block>() / 64;
    const std::size_t first = lines * static_cast<std::size_t>(s) / kSlices, end = lines * static_cast<std::size_t>(s + 1) / kSlices;
    for (std::size_t line = first; line < end; ++line) {
        _mm_prefetch(reinterpret_cast<const char*>(sb) + kAhead + 64 * line, _MM_HINT_T1);
    }
}

// vpshufb indices (within each 128-bit lane) copying each 32-bit lane's low word into both of
// its words, and the byte mask of the high words (bytes 2 and 3 of every lane).
__m512i low_word_to_both() {
    return _mm512_broadcast_i32x4(_mm_setr_epi32(0x0100'0100, 0x0504'0504, 0x0908'0908, 0x0D0C'0D0C));
}
constexpr __mmask64 kHighWordBytes = 0xCCCC'CCCC'CCCC'CCCCull;

// scale · sum for int32 lanes |sum| < 2^23 and int8 or uint8 scales, added to acc exactly in
// one port-0 micro-op (vpmulld takes two, and an add): sum = 256 · (sum >> 8) + (sum & 255),
// both parts within int16, so one vpdpwssd of the words (sum & 255, sum >> 8) (a byte shuffle,
// port 5) against (scale, 256 · scale) adds it. The scale pairs come from scale_pairs.
struct ScaledSum {
    // vpshufb indices within each 128-bit lane: dword d's bytes 4d, zero, 4d+1, 4d+2.
    static __m512i split() {
        return _mm512_broadcast_i32x4(_mm_setr_epi32(0x0201'8000, 0x0605'8004, 0x0A09'8008, 0x0E0D'800C));
    }
    // Sign- or zero-extended scale dwords s to (s, 256 · s): dword d's bytes 4d, 4d+1, zero, 4d.
    static __m512i scale_pairs(__m512i scales) {
        return _mm512_shuffle_epi8(scales,
                                   _mm512_broadcast_i32x4(_mm_setr_epi32(0x0080'0100, 0x0480'0504, 0x0880'0908, 0x0C80'0D0C)));
    }
    static __m512i add(__m512i acc, __m512i sum, __m512i scale_pair) {
        return _mm512_dpwssd_epi32(acc, _mm512_shuffle_epi8(sum, split()), scale_pair);
    }
};

// Slice s of one super-block into every row's integer sum.
template <typename Block, int R>
void add_slice(const std::byte* sb, int s, const BlockQ8_K* const (&a)[R], __m512i (&isum)[R]) {
    __m512i w[kOperands];
    load_operands<Block>(sb, s, w);
    if constexpr (std::is_same_v<Block, BlockQ6_K>) {
        // Sub-blocks 2s (operands 0-3) and 2s+1 (4-7); each sum starts from -32 Σa (the bias),
        // |sum| <= 16 · 32 · 128 = 65536, so ScaledSum applies the int8 scale.
        const auto* scales = reinterpret_cast<const __m128i*>(sb + Q6KLayout::kScales) + 2 * s;
        const __m512i scale0 = ScaledSum::scale_pairs(_mm512_cvtepi8_epi32(_mm_load_si128(scales)));
        const __m512i scale1 = ScaledSum::scale_pairs(_mm512_cvtepi8_epi32(_mm_load_si128(scales + 1)));
        for (int r = 0; r < R; ++r) {
            const std::int8_t* q = a[r]->qs.data() + 32 * s;
            const auto bias0 = -32 * a[r]->bsums[static_cast<std::size_t>(2 * s)];
            const auto bias1 = -32 * a[r]->bsums[static_cast<std::size_t>(2 * s + 1)];
            const __m512i sum0 = dot_operands<0, 4>(_mm512_set1_epi32(bias0), w, q);
            const __m512i sum1 = dot_operands<4, 4>(_mm512_set1_epi32(bias1), w, q);
            isum[r] = ScaledSum::add(ScaledSum::add(isum[r], sum0, scale0), sum1, scale1);
        }
    } else if constexpr (std::is_same_v<Block, BlockQ4_K>) {
        // The sums of the slice's two halves (operands 0-3 and 4-7, 16 elements each) fit in
        // int16 (|Σ q a| <= 16 · 15 · 128 = 30720): the high half's low word moves into the
        // high word of the low half's lane (a masked byte shuffle, port 5), and one vpdpwssd
        // against the scale in both words adds scale · (low + high), exactly. (ScaledSum's
        // split of one 32-element sum measured slower here.)
        const auto* scales = reinterpret_cast<const __m128i*>(sb + KWithMins<Block>::kScales) + s;
        const __m512i scale = _mm512_shuffle_epi8(_mm512_cvtepu8_epi32(_mm_load_si128(scales)), low_word_to_both());
        for (int r = 0; r < R; ++r) {
            const std::int8_t* q = a[r]->qs.data() + 32 * s;
            const __m512i low = dot_operands<0, 4>(_mm512_setzero_si512(), w, q);
            const __m512i high = dot_operands<4, 4>(_mm512_setzero_si512(), w, q);
            const __m512i pair = _mm512_mask_shuffle_epi8(low, kHighWordBytes, high, low_word_to_both());
            isum[r] = _mm512_dpwssd_epi32(isum[r], pair, scale);
        }
    } else {
        // Q5_K: codes up to 31 put both a half and the whole slice outside int16, and
        // ScaledSum measured no faster than vpmulld here (the unpacking of the fifth bits
        // leaves port 0 less loaded).
        const auto* scales = reinterpret_cast<const __m128i*>(sb + KWithMins<Block>::kScales) + s;
        const __m512i scale = _mm512_cvtepu8_epi32(_mm_load_si128(scales));
        for (int r = 0; r < R; ++r) {
            const __m512i sum = dot_operands<0, kOperands>(_mm512_setzero_si512(), w, a[r]->qs.data() + 32 * s);
            isum[r] = _mm512_add_epi32(isum[r], _mm512_mullo_epi32(sum, scale));
        }
    }
}

// Σ_j min_j Σa_j for the 16 rows: vpdpwssd of the (min 2p, min 2p+1) pairs against the
// activation's (Σa_2p, Σa_2p+1), each Σa_j = bsums 2j + 2j+1 (|Σa_j| <= 32 · 127 fits int16).
template <typename Block>
__m512i min_sums(const __m512i (&mins)[4], const BlockQ8_K& a) {
    const __m256i sums = _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.bsums.data())),
                                           _mm256_set1_epi16(1));
    alignas(16) std::int32_t pairs[4];
    _mm_store_si128(reinterpret_cast<__m128i*>(pairs),
                    _mm_packs_epi32(_mm256_castsi256_si128(sums), _mm256_extracti128_si256(sums, 1)));
    __m512i imin = _mm512_setzero_si512();
    for (int p = 0; p < 4; ++p) imin = _mm512_dpwssd_epi32(imin, mins[p], _mm512_set1_epi32(pairs[p]));
    return imin;
}

// The super-block's float terms into every row's accumulator: d·da·isum, then -dmin·da·imin.
template <typename Block, int R>
void add_float_terms(const std::byte* sb, const BlockQ8_K* const (&a)[R], const __m512i (&isum)[R], __m512 (&acc)[R]) {
    const std::size_t d_at = Layout<Block>::kD;
    const __m512 d = _mm512_cvtph_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(sb + d_at)));
    if constexpr (std::is_same_v<Block, BlockQ6_K>) {
        for (int r = 0; r < R; ++r) {
            acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum[r]), _mm512_mul_ps(d, _mm512_set1_ps(a[r]->d)), acc[r]);
        }
    } else {
        const __m512 dmin = _mm512_cvtph_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(sb + d_at + 32)));
        __m512i mins[4];
        for (int p = 0; p < 4; ++p) {
            mins[p] = _mm512_cvtepu8_epi16(_mm256_load_si256(reinterpret_cast<const __m256i*>(sb + KWithMins<Block>::kMins) + p));
        }
        for (int r = 0; r < R; ++r) {
            const __m512 da = _mm512_set1_ps(a[r]->d);
            acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum[r]), _mm512_mul_ps(d, da), acc[r]);
            acc[r] = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(min_sums<Block>(mins, *a[r])), _mm512_mul_ps(dmin, da), acc[r]);
        }
    }
}

// Outputs j < cols of one group for activation rows r0..r0+R-1. `stream`: prefetch ahead.
template <typename Block, int R>
void tile(const InterleavedGemm<Block>& g, const std::byte* group, std::int64_t r0, __mmask16 cols, bool stream) {
    constexpr std::size_t sb_bytes = interleaved_k_superblock_bytes<Block>();
    __m512 acc[R];
    for (auto& v : acc) v = _mm512_setzero_ps();
    for (std::int64_t b = 0; b < g.blocks; ++b) {
        const std::byte* sb = group + static_cast<std::size_t>(b) * sb_bytes;
        const BlockQ8_K* a[R];
        for (int r = 0; r < R; ++r) a[r] = g.a + (r0 + r) * g.a_stride + b;
        __m512i isum[R];
        for (auto& v : isum) v = _mm512_setzero_si512();
        for (int s = 0; s < kSlices; ++s) {
            if (stream) prefetch_ahead<Block>(sb, s);
            add_slice<Block, R>(sb, s, a, isum);
        }
        add_float_terms<Block, R>(sb, a, isum, acc);
    }
    for (int r = 0; r < R; ++r) _mm512_mask_storeu_ps(g.y + (r0 + r) * g.y_stride, cols, acc[r]);
}

template <typename Block, int R>
void edge_tile(const InterleavedGemm<Block>& g, const std::byte* group, std::int64_t r0, int rows, __mmask16 cols,
               bool stream) {
    if constexpr (R > 1) {
        if (rows < R) return edge_tile<Block, R - 1>(g, group, r0, rows, cols, stream);
    }
    tile<Block, R>(g, group, r0, cols, stream);
}

// Groups outside, activation tiles inside: a group's bytes stay in cache while the activation
// rows stream past.
template <typename Block>
void gemm_groups(const InterleavedGemm<Block>& g) {
    const std::size_t group_bytes = interleaved_k_group_bytes<Block>(g.blocks);
    for (std::int64_t c0 = 0; c0 < g.cols; c0 += kInterleave) {
        const std::byte* group = g.w + static_cast<std::size_t>(c0 / kInterleave) * group_bytes;
        const auto live = static_cast<unsigned>(std::min<std::int64_t>(kInterleave, g.cols - c0));
        const auto cols = static_cast<__mmask16>((1u << live) - 1u);
        const InterleavedGemm<Block> at{g.rows, g.cols, g.blocks, g.a, nullptr, g.a_stride, g.w, g.y + c0, g.y_stride};
        const bool stream = g.rows <= kTileRows;
        std::int64_t r0 = 0;
        for (; r0 + kTileRows <= g.rows; r0 += kTileRows) tile<Block, kTileRows>(at, group, r0, cols, stream);
        if (r0 < g.rows) edge_tile<Block, kTileRows - 1>(at, group, r0, static_cast<int>(g.rows - r0), cols, stream);
    }
}

#endif  // FORGE_INTERLEAVED_GEMM

}  // namespace

void interleave(const BlockQ4_K* w, std::int64_t n, std::int64_t blocks, std::byte* out) noexcept {
    interleave_rows(w, n, blocks, out);
}
void interleave(const BlockQ5_K* w, std::int64_t n, std::int64_t blocks, std::byte* out) noexcept {
    interleave_rows(w, n, blocks, out);
}
void interleave(const BlockQ6_K* w, std::int64_t n, std::int64_t blocks, std::byte* out) noexcept {
    interleave_rows(w, n, blocks, out);
}

void deinterleave_row(const std::byte* group, std::int64_t blocks, int r, BlockQ4_K* out) noexcept {
    deinterleave(group, blocks, r, out);
}
void deinterleave_row(const std::byte* group, std::int64_t blocks, int r, BlockQ5_K* out) noexcept {
    deinterleave(group, blocks, r, out);
}
void deinterleave_row(const std::byte* group, std::int64_t blocks, int r, BlockQ6_K* out) noexcept {
    deinterleave(group, blocks, r, out);
}

#if defined(FORGE_INTERLEAVED_GEMM)
void gemm(const InterleavedGemm<BlockQ4_K>& g) noexcept { gemm_groups(g); }
void gemm(const InterleavedGemm<BlockQ5_K>& g) noexcept { gemm_groups(g); }
void gemm(const InterleavedGemm<BlockQ6_K>& g) noexcept { gemm_groups(g); }
#else  // AVX2 only
void gemm(const InterleavedGemm<BlockQ4_K>& g) noexcept { avx2::gemm(g); }
void gemm(const InterleavedGemm<BlockQ5_K>& g) noexcept { avx2::gemm(g); }
void gemm(const InterleavedGemm<BlockQ6_K>& g) noexcept { avx2::gemm(g); }
#endif

}  // namespace forge::kernels::simd

#endif
