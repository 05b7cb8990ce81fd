// The interleaved Q4_0 / Q5_0 / Q5_1 / Q8_0 / MXFP4 layout and its AVX-512 VNNI GEMM
// (kernels/quant_gemm_interleaved.h describes both). The register tile is one group of 16 weight rows (one zmm of outputs per
// activation row) x up to kTileRows activation rows: a block's weights are loaded and
// unpacked once into 8 operands and reused for every activation row of the tile. With one
// activation row (decoding) the same kernel streams each group's bytes front to back.
// The idea follows ggml's CPU repack buffer (q4_0_8x8 blocks with their gemm/gemv kernels,
// MIT); see docs/THIRD-PARTY-NOTICES.md.
#include "kernels/quant_gemm_interleaved.h"

// The layout code runs wherever Q4_0 loads interleaved (also on AVX2, whose Q4_0, Q5_0, Q5_1
// and MXFP4 kernels are simd/quant_gemm_interleaved_avx2.cpp); the AVX-512 kernel below only with AVX-512
// VNNI.
#if defined(FORGE_INTERLEAVED_NIBBLE_GEMM)

#include "kernels/half.h"
#include "kernels/simd/quant_lanes.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace forge::kernels::simd {

namespace {

constexpr int kQuadBytes = 64;   // one quad: four quant bytes of each of the 16 rows

// A Q5 block's fifth bits as a group stores them: bit i of byte k is the fifth bit of element
// 4i + k (qh holds element j's at bit j), and back.
std::uint32_t fifth_bit_lanes(const std::array<std::uint8_t, 4>& qh) {
    const std::uint32_t bits = load_u32(qh.data());
    std::uint32_t lanes = 0;
    for (int j = 0; j < 32; ++j) lanes |= ((bits >> j) & 1u) << (8 * (j % 4) + j / 4);
    return lanes;
}
std::uint32_t fifth_bits_of_lanes(std::uint32_t lanes) {
    std::uint32_t bits = 0;
    for (int j = 0; j < 32; ++j) bits |= ((lanes >> (8 * (j % 4) + j / 4)) & 1u) << j;
    return bits;
}

// A block's scales as a group stores them, row r of 16 in the block's scale area: the f16 d
// (Q5_1: then its f16 m, 32 bytes on), or MXFP4's exponent byte e.
template <typename Block>
void write_scales(const Block& b, int r, std::byte* area) {
    if constexpr (requires { b.e; }) {
        area[r] = std::byte{b.e};
    } else {
        std::memcpy(area + 2 * r, &b.d, sizeof(b.d));
        if constexpr (kHasMin<Block>) std::memcpy(area + 2 * kInterleave + 2 * r, &b.m, sizeof(b.m));
    }
}
template <typename Block>
void read_scales(const std::byte* area, int r, Block& b) {
    if constexpr (requires { b.e; }) {
        b.e = std::to_integer<std::uint8_t>(area[r]);
    } else {
        std::memcpy(&b.d, area + 2 * r, sizeof(b.d));
        if constexpr (kHasMin<Block>) std::memcpy(&b.m, area + 2 * kInterleave + 2 * r, sizeof(b.m));
    }
}

// Row r's quant bytes 4t..4t+3 go to bytes 4r..4r+3 of quad t, xor `flip` (0x80 per byte
// turns a signed Q8_0 quant q into the unsigned q + 128; Q4_0, Q5 and MXFP4 nibbles stay as
// they are); a Q5 block's fifth bits to bytes 4r..4r+3 of the run after the quads.
template <typename Block>
void interleave_group(const Block* rows, std::int64_t live_rows, std::int64_t blocks, std::uint32_t flip,
                      std::byte* out) {
    constexpr int quads = static_cast<int>(sizeof(Block::qs) / 4);
    std::memset(out, 0, interleaved_group_bytes<Block>(blocks));
    for (std::int64_t r = 0; r < live_rows; ++r) {
        for (std::int64_t b = 0; b < blocks; ++b) {
            const Block& src = rows[r * blocks + b];
            std::byte* dst = out + interleaved_quants_offset<Block>(b) + static_cast<std::size_t>(r) * 4;
            for (int t = 0; t < quads; ++t) {
                const std::uint32_t q = load_u32(src.qs.data() + 4 * t) ^ flip;
                std::memcpy(dst + t * kQuadBytes, &q, sizeof(q));
            }
            if constexpr (kHasFifthBits<Block>) {
                const std::uint32_t lanes = fifth_bit_lanes(src.qh);
                std::memcpy(dst + quads * kQuadBytes, &lanes, sizeof(lanes));
            }
            write_scales(src, static_cast<int>(r), out + interleaved_scales_offset<Block>(b));
        }
    }
}

// The inverse for one row: row r of a group back to plain blocks (the embedding lookup of a
// tied output head reads its rows from here, so the original pages stay released).
template <typename Block>
void deinterleave_group_row(const std::byte* group, std::int64_t blocks, int r, std::uint32_t flip, Block* out) {
    constexpr int quads = static_cast<int>(sizeof(Block::qs) / 4);
    for (std::int64_t b = 0; b < blocks; ++b) {
        const std::byte* src = group + interleaved_quants_offset<Block>(b) + static_cast<std::size_t>(r) * 4;
        for (int t = 0; t < quads; ++t) {
            const std::uint32_t q = load_u32(src + t * kQuadBytes) ^ flip;
            std::memcpy(out[b].qs.data() + 4 * t, &q, sizeof(q));
        }
        if constexpr (kHasFifthBits<Block>) {
            const std::uint32_t bits = fifth_bits_of_lanes(load_u32(src + quads * kQuadBytes));
            std::memcpy(out[b].qh.data(), &bits, sizeof(bits));
        }
        read_scales(group + interleaved_scales_offset<Block>(b), r, out[b]);
    }
}

template <typename Block>
void interleave_rows(const Block* w, std::int64_t n, std::int64_t blocks, std::uint32_t flip, std::byte* out) {
    const std::size_t group_bytes = interleaved_group_bytes<Block>(blocks);
    for (std::int64_t r0 = 0; r0 < n; r0 += kInterleave) {
        interleave_group(w + r0 * blocks, std::min<std::int64_t>(kInterleave, n - r0), blocks, flip,
                         out + static_cast<std::size_t>(r0 / kInterleave) * group_bytes);
    }
}

#if defined(FORGE_INTERLEAVED_GEMM)

constexpr int kOperands = 8;     // quads a block's 32 elements make: each meets activation bytes 4i..4i+3
constexpr int kTileRows = kInterleavedTileRows;

// Decoding a few sequences at once (2 to kTileRows activation rows) streams the weights once
// from memory, with more arithmetic per byte than one row: asking for each block kAhead bytes
// ahead (non-temporal: the group is read once) keeps more loads in flight than the hardware
// prefetcher does. One row (one sequence) keeps pace with the hardware prefetcher alone, and
// asking ahead slowed it: one core, a [768 x 2048] Q8_0 product streamed from memory
// (tools/bench_quant_k rows, medians of 5 runs), 1 row 29 GB/s without, 26 with T0 at 2 KiB;
// 4 rows 25 GB/s with NTA at 4 KiB, 23 with T0 at 2 KiB, 18 without. Prefill reads each group
// from cache many times and skips it.
constexpr int kAhead = 4096;

// The lines kAhead bytes past the block's quants and past its chunk's first line (the scales):
// block by block these ask for every line of the group, kAhead bytes ahead of the reads.
template <typename Block>
void prefetch_ahead(const std::byte* quants, const std::byte* scales) {
    for (std::size_t line = 0; line < interleaved_quant_bytes<Block>(); line += 64) {
        _mm_prefetch(reinterpret_cast<const char*>(quants) + kAhead + line, _MM_HINT_NTA);
    }
    _mm_prefetch(reinterpret_cast<const char*>(scales) + kAhead, _MM_HINT_NTA);
}

// The 16 rows' f16 scales of a block as f32.
inline __m512 half_scales(const std::byte* scales) {
    return _mm512_cvtph_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(scales)));
}

// acc + int32 lanes x scale, fused (the Q4_0 / Q8_0 float step).
inline __m512 fused_step(__m512 acc, __m512i sum, __m512 scale) { return _mm512_fmadd_ps(_mm512_cvtepi32_ps(sum), scale, acc); }

// The int32 lanes x scale, rounded, as scalar::dot forms a block's term (MXFP4, Q5_0, Q5_1).
inline __m512 scaled(__m512i sum, __m512 scale) { return _mm512_mul_ps(_mm512_cvtepi32_ps(sum), scale); }

// Quad t's low nibbles are elements 4t..4t+3, its high nibbles 16+4t..: operands t and t+4.
inline void load_nibbles(const std::byte* quads, __m512i (&w)[kOperands]) {
    const __m512i low_nibble = _mm512_set1_epi8(0x0F);
    for (int t = 0; t < kOperands / 2; ++t) {
        const __m512i q = _mm512_load_si512(quads + t * kQuadBytes);
        w[t] = _mm512_and_si512(q, low_nibble);
        w[t + kOperands / 2] = _mm512_and_si512(_mm512_srli_epi16(q, 4), low_nibble);
    }
}

// Per format: a block's 8 operands of one group (unsigned bytes for vpdpbusd), its 16 weight
// scales, and the float step that adds the block to the outputs.
struct Q4_0Operands {
    using Block = BlockQ4_0;
    static void load(const std::byte* quads, __m512i (&w)[kOperands]) { load_nibbles(quads, w); }
    static __m512 scales(const std::byte* s) { return half_scales(s); }
    static __m512 step(__m512 acc, __m512i sum, __m512 scale) { return fused_step(acc, sum, scale); }
};

// Q5_0 and Q5_1: the nibbles of Q4_0, each operand's fifth bits moved from bit i of its bytes
// in the block's run (after the four quads) to bit 4; the float step scalar::dot's, a multiply
// then an add, so every output has its bits. (The 16-bit shifts carry bits across bytes only
// into places the mask clears.)
template <typename Q5Block>
struct Q5Operands {
    using Block = Q5Block;
    static void load(const std::byte* quads, __m512i (&w)[kOperands]) {
        load_nibbles(quads, w);
        const __m512i run = _mm512_load_si512(quads + kOperands / 2 * kQuadBytes);
        const __m512i bit_4 = _mm512_set1_epi8(0x10);
        for (int i = 0; i < kOperands; ++i) {
            const __m512i moved = i < 4 ? _mm512_slli_epi16(run, static_cast<unsigned>(4 - i))
                                        : _mm512_srli_epi16(run, static_cast<unsigned>(i - 4));
            w[i] = _mm512_ternarylogic_epi32(w[i], moved, bit_4, 0xF8);  // w | (moved & bit_4)
        }
    }
    static __m512 scales(const std::byte* s) { return half_scales(s); }
    static __m512 mins(const std::byte* s) { return half_scales(s + 2 * kInterleave); }
    static __m512 step(__m512 acc, __m512i sum, __m512 scale) { return _mm512_add_ps(acc, scaled(sum, scale)); }
    // Q5_1: (d da) isum + (m da) Σa, that sum added.
    static __m512 step(__m512 acc, __m512i sum, __m512 scale, __m512 min_scale, float a_sum) {
        return _mm512_add_ps(acc, _mm512_add_ps(scaled(sum, scale), _mm512_mul_ps(_mm512_set1_ps(a_sum), min_scale)));
    }
};

struct Q8_0Operands {
    using Block = BlockQ8_0;
    static void load(const std::byte* quads, __m512i (&w)[kOperands]) {
        for (int t = 0; t < kOperands; ++t) w[t] = _mm512_load_si512(quads + t * kQuadBytes);
    }
    static __m512 scales(const std::byte* s) { return half_scales(s); }
    static __m512 step(__m512 acc, __m512i sum, __m512 scale) { return fused_step(acc, sum, scale); }
};

// MXFP4: the nibbles of Q4_0, each looked up (vpshufb, within every 128-bit lane) in the
// biased levels; the exponent bytes widened to 2^(e - 128) as e8m0_to_f32_half builds it (the
// f32 bits (e - 1) << 23, or for e < 2 the subnormal 2^21 << e); the float step scalar::dot's,
// a multiply then an add, so every output has its bits.
struct Mxfp4Operands {
    using Block = BlockMXFP4;
    static void load(const std::byte* quads, __m512i (&w)[kOperands]) {
        const __m512i levels = _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(kMxfp4InterleavedLevels.data())));
        load_nibbles(quads, w);
        for (auto& v : w) v = _mm512_shuffle_epi8(levels, v);
    }
    static __m512 scales(const std::byte* s) {
        const __m512i e = _mm512_cvtepu8_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(s)));
        const __m512i normal = _mm512_slli_epi32(_mm512_sub_epi32(e, _mm512_set1_epi32(1)), 23);
        const __m512i subnormal = _mm512_sllv_epi32(_mm512_set1_epi32(0x00200000), e);
        return _mm512_castsi512_ps(_mm512_mask_blend_epi32(_mm512_cmplt_epu32_mask(e, _mm512_set1_epi32(2)), normal, subnormal));
    }
    static __m512 step(__m512 acc, __m512i sum, __m512 scale) { return _mm512_add_ps(acc, scaled(sum, scale)); }
};

// Outputs j < cols of one group for activation rows r0..r0+R-1: each accumulator lane is one
// output, summed over the blocks in order. `stream`: prefetch the group ahead.
template <typename Operands, int R>
void tile(const InterleavedGemm<typename Operands::Block>& g, const std::byte* group, std::int64_t r0, __mmask16 cols,
          bool stream) {
    using Block = typename Operands::Block;
    __m512 acc[R];
    for (auto& v : acc) v = _mm512_setzero_ps();
    for (std::int64_t b = 0; b < g.blocks; ++b) {
        const std::byte* quants = group + interleaved_quants_offset<Block>(b);
        const std::byte* block_scales = group + interleaved_scales_offset<Block>(b);
        if (stream) prefetch_ahead<Block>(quants, block_scales);
        __m512i w[kOperands];
        Operands::load(quants, w);
        const __m512 w_scale = Operands::scales(block_scales);
        __m512 w_min = _mm512_setzero_ps();
        if constexpr (kHasMin<Block>) w_min = Operands::mins(block_scales);
        for (int r = 0; r < R; ++r) {
            const std::int64_t at = (r0 + r) * g.a_stride + b;
            const std::int8_t* a = g.a[at].qs.data();
            const ActivationBlockInfo& info = g.a_info[at];
            __m512i sum = _mm512_set1_epi32(info.correction);
            for (int i = 0; i < kOperands; ++i) {
                sum = lanes::dot_groups_broadcast(sum, w[i], a + 4 * i);
            }
            const __m512 a_scale = _mm512_set1_ps(info.d);
            const __m512 scale = _mm512_mul_ps(w_scale, a_scale);
            if constexpr (kHasMin<Block>) acc[r] = Operands::step(acc[r], sum, scale, _mm512_mul_ps(w_min, a_scale), info.sum);
            else acc[r] = Operands::step(acc[r], sum, scale);
        }
    }
    for (int r = 0; r < R; ++r) _mm512_mask_storeu_ps(g.y + (r0 + r) * g.y_stride, cols, acc[r]);
}

// The tile for the last rows (fewer than kTileRows), by template dispatch.
template <typename Operands, int R>
void edge_tile(const InterleavedGemm<typename Operands::Block>& g, const std::byte* group, std::int64_t r0, int rows,
               __mmask16 cols, bool stream) {
    if constexpr (R > 1) {
        if (rows < R) return edge_tile<Operands, R - 1>(g, group, r0, rows, cols, stream);
    }
    tile<Operands, R>(g, group, r0, cols, stream);
}

// Groups outside, activation tiles inside: a group's bytes stay in L1 while the activation
// rows stream past.
template <typename Operands>
void gemm_groups(const InterleavedGemm<typename Operands::Block>& g) {
    const std::size_t group_bytes = interleaved_group_bytes<typename Operands::Block>(g.blocks);
    for (std::int64_t c0 = 0; c0 < g.cols; c0 += kInterleave) {
        const std::byte* group = g.w + static_cast<std::size_t>(c0 / kInterleave) * group_bytes;
        const auto live = static_cast<unsigned>(std::min<std::int64_t>(kInterleave, g.cols - c0));
        const auto cols = static_cast<__mmask16>((1u << live) - 1u);
        const InterleavedGemm<typename Operands::Block> at{g.rows, g.cols, g.blocks, g.a, g.a_info, g.a_stride,
                                                          g.w, g.y + c0, g.y_stride};
        const bool stream = g.rows > 1 && g.rows <= kTileRows;
        std::int64_t r0 = 0;
        for (; r0 + kTileRows <= g.rows; r0 += kTileRows) tile<Operands, kTileRows>(at, group, r0, cols, stream);
        if (r0 < g.rows) edge_tile<Operands, kTileRows - 1>(at, group, r0, static_cast<int>(g.rows - r0), cols, stream);
    }
}

#endif  // FORGE_INTERLEAVED_GEMM

}  // namespace

void interleave(const BlockQ4_0* w, std::int64_t n, std::int64_t blocks, std::byte* out) noexcept {
    interleave_rows(w, n, blocks, 0u, out);
}
void interleave(const BlockQ5_0* w, std::int64_t n, std::int64_t blocks, std::byte* out) noexcept {
    interleave_rows(w, n, blocks, 0u, out);
}
void interleave(const BlockQ5_1* w, std::int64_t n, std::int64_t blocks, std::byte* out) noexcept {
    interleave_rows(w, n, blocks, 0u, out);
}
void interleave(const BlockQ8_0* w, std::int64_t n, std::int64_t blocks, std::byte* out) noexcept {
    interleave_rows(w, n, blocks, 0x80808080u, out);
}
void interleave(const BlockMXFP4* w, std::int64_t n, std::int64_t blocks, std::byte* out) noexcept {
    interleave_rows(w, n, blocks, 0u, out);
}

void deinterleave_row(const std::byte* group, std::int64_t blocks, int r, BlockQ4_0* out) noexcept {
    deinterleave_group_row(group, blocks, r, 0u, out);
}
void deinterleave_row(const std::byte* group, std::int64_t blocks, int r, BlockQ5_0* out) noexcept {
    deinterleave_group_row(group, blocks, r, 0u, out);
}
void deinterleave_row(const std::byte* group, std::int64_t blocks, int r, BlockQ5_1* out) noexcept {
    deinterleave_group_row(group, blocks, r, 0u, out);
}
void deinterleave_row(const std::byte* group, std::int64_t blocks, int r, BlockQ8_0* out) noexcept {
    deinterleave_group_row(group, blocks, r, 0x80808080u, out);
}
void deinterleave_row(const std::byte* group, std::int64_t blocks, int r, BlockMXFP4* out) noexcept {
    deinterleave_group_row(group, blocks, r, 0u, out);
}

void activation_info(const BlockQ8_0* a, std::int64_t count, std::int32_t offset, ActivationBlockInfo* info) noexcept {
    for (std::int64_t i = 0; i < count; ++i) {
        std::int32_t sum = 0;
        for (const std::int8_t q : a[i].qs) sum += q;
        info[i] = {f16_to_f32(a[i].d), -offset * sum, static_cast<float>(sum)};  // exact, as every f16 is in f32
    }
}

#if defined(FORGE_INTERLEAVED_GEMM)
void gemm(const InterleavedGemm<BlockQ4_0>& g) noexcept { gemm_groups<Q4_0Operands>(g); }
void gemm(const InterleavedGemm<BlockQ5_0>& g) noexcept { gemm_groups<Q5Operands<BlockQ5_0>>(g); }
void gemm(const InterleavedGemm<BlockQ5_1>& g) noexcept { gemm_groups<Q5Operands<BlockQ5_1>>(g); }
void gemm(const InterleavedGemm<BlockQ8_0>& g) noexcept { gemm_groups<Q8_0Operands>(g); }
void gemm(const InterleavedGemm<BlockMXFP4>& g) noexcept { gemm_groups<Mxfp4Operands>(g); }
#else  // AVX2 only: the AVX2 kernels of Q4_0, Q5_0, Q5_1 and MXFP4; Q8_0 does not load interleaved here
void gemm(const InterleavedGemm<BlockQ4_0>& g) noexcept { avx2::gemm(g); }
void gemm(const InterleavedGemm<BlockQ5_0>& g) noexcept { avx2::gemm(g); }
void gemm(const InterleavedGemm<BlockQ5_1>& g) noexcept { avx2::gemm(g); }
void gemm(const InterleavedGemm<BlockMXFP4>& g) noexcept { avx2::gemm(g); }
#endif

}  // namespace forge::kernels::simd

#endif
