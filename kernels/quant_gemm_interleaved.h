// Interleaved ("repacked") Q4_0, Q5_0, Q5_1, Q8_0 and MXFP4 weights and the GEMM over them: the
// simd build's fast path for the quantized linear layers, prefill and decode alike.
//
// Layout. Weight rows (output features) are taken in groups of kInterleave = 16. For each
// block index, a group stores the 16 rows' quants interleaved four bytes at a time: quad t
// of a block is 64 bytes, bytes 4r..4r+3 = row r's quant bytes 4t..4t+3. One zmm load of a
// quad therefore holds, in int32 lane r, four quants of row r, and one VNNI multiply-add
// (vpdpbusd) against four activation bytes broadcast to every lane does 64 useful products
// and leaves lane r = row r's partial sum. After a whole block, lane r holds the block's
// exact integer dot product for row r; it is converted once and multiply-added with
// (row scale x activation scale) into a per-row f32 accumulator. So the float work is one
// conversion and two float operations per block per 16 outputs, against 8 integer
// multiply-adds (ggml's q4_0_8x8 repack and its AVX-512 gemm follow the same idea).
//   Q4_0: a quad is the original 16-byte qs array's bytes 4t..4t+3 (t < 4): the low nibbles
//         are elements 4t..4t+3, the high nibbles elements 16+4t..; unpacked to 0..15 and the
//         block's sum started from -8 Σa (so it is Σ (q - 8) a exactly).
//   Q8_0: a quad is qs bytes 4t..4t+3 (t < 8) stored as q + 128 (unsigned, what vpdpbusd
//         multiplies); the sum starts from -128 Σa (so it is Σ q a exactly).
//   MXFP4: quads as Q4_0's (the same nibble order); the kernels look each four-bit code up in
//         kMxfp4InterleavedLevels, ggml's doubled E2M1 value + 12 (0..24, unsigned), and start
//         the sum from -12 Σa (so it is Σ kMxfp4Values[code] a exactly).
//   Q5_0, Q5_1: quads as Q4_0's, then one 64-byte run of fifth bits: bit i of byte k of lane r
//         is the fifth bit of row r's element 4i + k (the elements operand i multiplies, see
//         below), so one shift and one mask put it at bit 4 of the operand (codes 0..31). Q5_0
//         starts the sum from -16 Σa (so it is Σ (q - 16) a exactly); Q5_1 has no offset.
// Then the 16 rows' scales of the block: f16 (32 bytes; Q5_1 its d, then its 16 mins m, 64
// bytes), MXFP4's E8M0 exponent bytes (16 bytes, turned into 2^(e - 128) in registers as
// e8m0_to_f32_half does). A group stores its blocks in chunks of kChunkBlocks: the chunk's
// scales fill its first cache line (two blocks' of Q4_0, Q5_0 and Q8_0, one of Q5_1, four of
// MXFP4), its blocks' quants follow, so a group is one stream front to back. (A run of all
// the scales after all the quants, a second stream 32 KiB away, held one core's 1-row Q8_0
// product to 26 GB/s in tools/bench_quant_k `rows`, against 31 for a plain read of memory;
// docs/LLM.md has the measurements.) The
// last chunk may hold fewer blocks; the last group is padded with zero rows.
//
// Arithmetic. Each output is one lane, accumulated over blocks in block order exactly as
// the contract of kernels/quant_dot.h describes (integer part exact, one fused f32
// multiply-add per block), so it is within that contract's bound of scalar::dot, and it does
// not depend on how many activation rows or which groups a call covers: prefill and decode
// give the same bits. MXFP4 takes scalar::dot's float steps in its order (the scale product
// 2^(e-128) x activation scale, times the block's integer sum, added to the output: a multiply
// and an add, not fused), so its outputs are scalar::dot's bits; so do Q5_0 ((d x da) x isum
// added) and Q5_1 ((d x da) x isum + (m x da) x Σa, that sum added). The scalar backend keeps
// the plain layout (its dot is the spec).
#pragma once

#include "kernels/quant_blocks.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(FORGE_BACKEND_SIMD) && defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && \
    defined(__AVX512DQ__) && defined(__AVX512VNNI__)
#define FORGE_INTERLEAVED_GEMM 1
#endif

// FORGE_INTERLEAVED_AVX2: the AVX2 + FMA + F16C kernels over the same layouts are built (Q4_0,
// Q5_0, Q5_1 and MXFP4 here, simd/quant_gemm_interleaved_avx2.cpp; the K-quants,
// kernels/quant_gemm_interleaved_k.h), on AVX-512 machines too, where the tests run them. Not
// Q8_0: its codes up to 255 do not fit that kernel's int16 sums, so it keeps the dot kernels
// there.
#if defined(FORGE_BACKEND_SIMD) && defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define FORGE_INTERLEAVED_AVX2 1
#endif
#if defined(FORGE_INTERLEAVED_GEMM) || defined(FORGE_INTERLEAVED_AVX2)
#define FORGE_INTERLEAVED_NIBBLE_GEMM 1
#endif

namespace forge::kernels {

// kHasInterleavedGemm: Q4_0, Q5_0, Q5_1, Q8_0 and MXFP4 (AVX-512 VNNI); kHasInterleavedNibbleGemm: the
// nibble formats Q4_0, Q5_0, Q5_1 and MXFP4 (either kernel).
#if defined(FORGE_INTERLEAVED_GEMM)
inline constexpr bool kHasInterleavedGemm = true;
#else
inline constexpr bool kHasInterleavedGemm = false;
#endif
#if defined(FORGE_INTERLEAVED_NIBBLE_GEMM)
inline constexpr bool kHasInterleavedNibbleGemm = true;
#else
inline constexpr bool kHasInterleavedNibbleGemm = false;
#endif

inline constexpr int kInterleave = 16;

// Activation rows in one register tile of the interleaved kernels (both headers). A call with
// at most this many rows (decoding one or a few sequences) reads each group once, so it
// streams the weights from memory and the kernels prefetch ahead (the AVX-512 VNNI one of
// Q4_0 .. MXFP4 from two rows on: one row streams fastest on the hardware prefetcher alone);
// the front-end gives such a call strips of about 32 KiB of groups.
inline constexpr int kInterleavedTileRows = 8;

// Whether format Block has a fifth bit per element (Q5_0, Q5_1) and a min (Q5_1).
template <typename Block>
inline constexpr bool kHasFifthBits = requires(Block b) { b.qh; };
template <typename Block>
inline constexpr bool kHasMin = requires(Block b) { b.m; };

// The bytes of one group per block of its rows, for weight format Block: the quants (Q5_0 /
// Q5_1: then their fifth bits), then the scales of a row (an f16, Q5_1's d and m, or MXFP4's
// exponent byte).
template <typename Block>
constexpr std::size_t interleaved_quant_bytes() {
    if constexpr (kHasFifthBits<Block>) return (sizeof(Block::qs) + sizeof(Block::qh)) * kInterleave;
    else return sizeof(Block::qs) * kInterleave;
}
template <typename Block>
constexpr std::size_t interleaved_scale_bytes() {
    if constexpr (std::is_same_v<Block, BlockMXFP4>) return sizeof(BlockMXFP4::e);
    else return (kHasMin<Block> ? 2 : 1) * sizeof(f16_bits);
}

// Groups and chunks start on cache lines (their zmm loads are aligned).
struct alignas(64) CacheLine {
    std::byte bytes[64];
};

// Blocks per chunk: as many as have their 16 rows' scales in one cache line.
template <typename Block>
inline constexpr std::int64_t kChunkBlocks =
    static_cast<std::int64_t>(sizeof(CacheLine) / (kInterleave * interleaved_scale_bytes<Block>()));

// Where block b of a group starts: its 16 rows' scales, and its quants.
template <typename Block>
constexpr std::size_t interleaved_chunk_start(std::int64_t b) {
    const auto chunk = static_cast<std::size_t>(b / kChunkBlocks<Block>);
    return chunk * (sizeof(CacheLine) + static_cast<std::size_t>(kChunkBlocks<Block>) * interleaved_quant_bytes<Block>());
}
template <typename Block>
constexpr std::size_t interleaved_scales_offset(std::int64_t b) {
    return interleaved_chunk_start<Block>(b) +
           static_cast<std::size_t>(b % kChunkBlocks<Block>) * kInterleave * interleaved_scale_bytes<Block>();
}
template <typename Block>
constexpr std::size_t interleaved_quants_offset(std::int64_t b) {
    return interleaved_chunk_start<Block>(b) + sizeof(CacheLine) +
           static_cast<std::size_t>(b % kChunkBlocks<Block>) * interleaved_quant_bytes<Block>();
}

// The bytes of one group of rows of `blocks` blocks (whole cache lines: every block's quants
// are).
template <typename Block>
constexpr std::size_t interleaved_group_bytes(std::int64_t blocks) {
    return blocks == 0 ? 0 : interleaved_quants_offset<Block>(blocks - 1) + interleaved_quant_bytes<Block>();
}

// What the kernels add to every block's integer sum of quant products: -offset Σa, which
// undoes the offset of the stored weight quants (8 for Q4_0, 16 for Q5_0, 0 for Q5_1, 128 for
// Q8_0, 12 for MXFP4's looked-up levels).
template <typename Block>
inline constexpr std::int32_t kInterleavedOffset = std::is_same_v<Block, BlockMXFP4>  ? 12
                                                   : std::is_same_v<Block, BlockQ5_0> ? 16
                                                   : std::is_same_v<Block, BlockQ5_1> ? 0
                                                   : std::is_same_v<Block, BlockQ4_0> ? 8
                                                                                      : 128;

// The unsigned byte the MXFP4 kernels multiply for each four-bit code: ggml's doubled E2M1 value
// (kMxfp4Values, -12..12) plus kInterleavedOffset, so vpdpbusd / vpmaddubsw can take it.
inline constexpr std::array<std::uint8_t, 16> kMxfp4InterleavedLevels = [] {
    std::array<std::uint8_t, 16> levels{};
    for (std::size_t i = 0; i < levels.size(); ++i) {
        levels[i] = static_cast<std::uint8_t>(kMxfp4Values[i] + kInterleavedOffset<BlockMXFP4>);
    }
    return levels;
}();

// What the kernels need of an activation block besides its quants: its scale as f32, the
// start of its integer sum, -offset Σa, and Σa as f32 (exact: |Σa| <= 32 x 128) for Q5_1's
// min term (computed once per block, not once per tile).
struct ActivationBlockInfo {
    float d;
    std::int32_t correction;
    float sum;
};

// The activation format a weight format multiplies against (kernels/quant_dot.h): Q8_0 for
// the 32-element formats, Q8_K for the K-quants (kernels/quant_gemm_interleaved_k.h).
template <typename Block>
using InterleavedActivation = std::conditional_t<Block::kSize == kSuperBlock, BlockQ8_K, BlockQ8_0>;

// y[r * y_stride + j] = dot(weight row j, activation row r) for r < rows and j < cols, the
// weight rows being the first `cols` rows of the groups starting at w (so cols may end
// inside the last group). Every row holds `blocks` blocks; a and a_info advance a_stride
// entries per activation row. a_info is for the 32-element formats (the K-quants' kernels
// take what they need from Q8_K's bsums; null there).
template <typename Block>
struct InterleavedGemm {
    std::int64_t rows, cols, blocks;
    const InterleavedActivation<Block>* a;
    const ActivationBlockInfo* a_info;
    std::int64_t a_stride;
    const std::byte* w;  // the first group, 64-byte aligned
    float* y;
    std::int64_t y_stride;
};

// Defined where kHasInterleavedNibbleGemm (the layout functions for every format, the gemm of Q4_0,
// Q5_0, Q5_1 and MXFP4) and where kHasInterleavedGemm (Q8_0's gemm); callers test them with if
// constexpr.
namespace simd {

// Writes the groups of w [n rows x blocks] to out, which holds ceil(n / 16) groups of
// interleaved_group_bytes<Block>(blocks) bytes and is 64-byte aligned.
void interleave(const BlockQ4_0* w, std::int64_t n, std::int64_t blocks, std::byte* out) noexcept;
void interleave(const BlockQ5_0* w, std::int64_t n, std::int64_t blocks, std::byte* out) noexcept;
void interleave(const BlockQ5_1* w, std::int64_t n, std::int64_t blocks, std::byte* out) noexcept;
void interleave(const BlockQ8_0* w, std::int64_t n, std::int64_t blocks, std::byte* out) noexcept;
void interleave(const BlockMXFP4* w, std::int64_t n, std::int64_t blocks, std::byte* out) noexcept;

// Row r (< 16) of the group at `group` back to its `blocks` plain blocks (the inverse of
// interleave for that row).
void deinterleave_row(const std::byte* group, std::int64_t blocks, int r, BlockQ4_0* out) noexcept;
void deinterleave_row(const std::byte* group, std::int64_t blocks, int r, BlockQ5_0* out) noexcept;
void deinterleave_row(const std::byte* group, std::int64_t blocks, int r, BlockQ5_1* out) noexcept;
void deinterleave_row(const std::byte* group, std::int64_t blocks, int r, BlockQ8_0* out) noexcept;
void deinterleave_row(const std::byte* group, std::int64_t blocks, int r, BlockMXFP4* out) noexcept;

// info[i] for each of the `count` activation blocks a[i], with `offset` the weight format's
// kInterleavedOffset.
void activation_info(const BlockQ8_0* a, std::int64_t count, std::int32_t offset, ActivationBlockInfo* info) noexcept;

void gemm(const InterleavedGemm<BlockQ4_0>& g) noexcept;
void gemm(const InterleavedGemm<BlockQ5_0>& g) noexcept;
void gemm(const InterleavedGemm<BlockQ5_1>& g) noexcept;
void gemm(const InterleavedGemm<BlockQ8_0>& g) noexcept;
void gemm(const InterleavedGemm<BlockMXFP4>& g) noexcept;

// The AVX2 Q4_0, Q5_0, Q5_1 and MXFP4 kernels (without VNNI), the same bits as the AVX-512
// ones; defined where FORGE_INTERLEAVED_AVX2. gemm above is this one where the build has no
// AVX-512 VNNI.
namespace avx2 {
void gemm(const InterleavedGemm<BlockQ4_0>& g) noexcept;
void gemm(const InterleavedGemm<BlockQ5_0>& g) noexcept;
void gemm(const InterleavedGemm<BlockQ5_1>& g) noexcept;
void gemm(const InterleavedGemm<BlockMXFP4>& g) noexcept;
}  // namespace avx2

}  // namespace simd

}  // namespace forge::kernels
