// Interleaved ("repacked") Q4_K, Q5_K and Q6_K weights and the GEMM over them: the K-quant
// twin of kernels/quant_gemm_interleaved.h (same groups of kInterleave = 16 weight rows, same
// idea: one AVX-512 VNNI vpdpbusd multiplies four quants of each of the 16 rows by four
// activation bytes broadcast to every lane, so int32 lane r is row r's partial sum).
//
// Layout. A group stores, for each 256-element super-block in order, a run of whole cache
// lines (interleaved_k_superblock_bytes<Block>()):
//   quants   8 slices of 32 elements x 4 quads of 64 bytes: quad t of slice s holds, in bytes
//            4r..4r+3, row r's four-bit codes of elements 32s+4t+k (low nibble of byte k) and
//            32s+16+4t+k (high nibble). So the low nibbles of quad t multiply activation bytes
//            32s+4t.., the high nibbles 32s+16+4t.. (the Q4_0 arrangement, slice by slice).
//   Q5_K     then 8 x 64 bytes of fifth bits: in slice s, bit i of byte k of lane r is the
//            fifth bit of row r's element 32s+4i+k (operand i, byte k: see below).
//   Q6_K     then 8 x 2 x 64 bytes of the two high bits: zmm h of slice s holds, at bits
//            2m, 2m+1 of byte k of lane r, the high bits of element 32s+4(4h+m)+k.
//   Q4_K/Q5_K  then scales [8 sub-blocks][16 rows] (bytes), mins [4 pairs][16 rows][2] (bytes:
//            row r's min of sub-blocks 2p and 2p+1), d [16] and dmin [16] (f16).
//   Q6_K     then scales [16 sub-blocks][16 rows] (int8), d [16] (f16), padding.
// Operand i (0..7) of slice s is the 32-bit lane of four unsigned quants of elements
// 32s+4i..32s+4i+3 (Q6_K: still biased by 32).
//
// Arithmetic, per output (one lane) and super-block, as the contract of kernels/quant_dot.h
// describes: the integer sums are exact (Σ_j scale_j Σ q a over the sub-blocks with one
// vpmulld per sub-block (Q5_K); for Q4_K one vpdpwssd of the scale against the sub-block's
// two 16-element half sums, which fit in int16; for Q6_K one vpdpwssd of (s, 256 s) against
// the sum split into (sum & 255, sum >> 8); Q6_K's bias enters each sub-block's sum as
// -32 Σa from Q8_K's bsums; the Q4_K/Q5_K mins Σ_j min_j Σa_j with vpdpwssd on the bsums),
// then one fused f32 multiply-add per float term (d·da·isum, and -dmin·da·imin) into the
// output's accumulator, in super-block order. So every output is within the contract's bound
// of scalar::dot (D <= 2 n_blocks + 8) and its bits do not depend on how many activation rows
// or which groups a call covers: prefill and decode agree, and so do all thread splits.
#pragma once

#include "kernels/quant_blocks.h"
#include "kernels/quant_gemm_interleaved.h"

#include <cstddef>
#include <cstdint>
#include <type_traits>

// Where the K-quant kernels exist: the AVX-512 VNNI one (simd/quant_gemm_interleaved_k.cpp) or,
// on machines without it, the AVX2 + FMA + F16C one (simd/quant_gemm_interleaved_k_avx2.cpp),
// over the same layout; built where FORGE_INTERLEAVED_AVX2 (kernels/quant_gemm_interleaved.h).
#if defined(FORGE_INTERLEAVED_GEMM) || defined(FORGE_INTERLEAVED_AVX2)
#define FORGE_INTERLEAVED_K_GEMM 1
#endif

namespace forge::kernels {

#if defined(FORGE_INTERLEAVED_K_GEMM)
inline constexpr bool kHasInterleavedKGemm = true;
#else
inline constexpr bool kHasInterleavedKGemm = false;
#endif

// Whether weights of format Block load interleaved: Q8_0 needs the AVX-512 kernel, Q4_0, Q5_0,
// Q5_1, MXFP4 and the K-quants either kernel.
template <typename Block>
inline constexpr bool kHasInterleavedGemmFor =
    Block::kSize == kSuperBlock ? kHasInterleavedKGemm
    : std::is_same_v<Block, BlockQ4_0> || std::is_same_v<Block, BlockQ5_0> || std::is_same_v<Block, BlockQ5_1> ||
            std::is_same_v<Block, BlockMXFP4>
        ? kHasInterleavedNibbleGemm
        : kHasInterleavedGemm;

// Bytes of one group of 16 rows per super-block (a whole number of cache lines).
template <typename Block>
constexpr std::size_t interleaved_k_superblock_bytes() {
    constexpr std::size_t quants = 8 * 4 * 64;
    std::size_t bytes = 0;
    if constexpr (sizeof(Block) == sizeof(BlockQ4_K)) bytes = quants + 128 + 128 + 64;
    if constexpr (sizeof(Block) == sizeof(BlockQ5_K)) bytes = quants + 8 * 64 + 128 + 128 + 64;
    if constexpr (sizeof(Block) == sizeof(BlockQ6_K)) bytes = quants + 16 * 64 + 256 + 32;
    return (bytes + 63) / 64 * 64;
}

template <typename Block>
constexpr std::size_t interleaved_k_group_bytes(std::int64_t blocks) {
    return static_cast<std::size_t>(blocks) * interleaved_k_superblock_bytes<Block>();
}

// The GEMM's operands are InterleavedGemm<Block> (kernels/quant_gemm_interleaved.h), a_info
// null. Defined only where kHasInterleavedKGemm (callers test it with if constexpr).
namespace simd {

// Writes the groups of w [n rows x blocks] to out: ceil(n / 16) groups of
// interleaved_k_group_bytes<Block>(blocks) bytes, 64-byte aligned; the last group's missing
// rows are zero.
void interleave(const BlockQ4_K* w, std::int64_t n, std::int64_t blocks, std::byte* out) noexcept;
void interleave(const BlockQ5_K* w, std::int64_t n, std::int64_t blocks, std::byte* out) noexcept;
void interleave(const BlockQ6_K* w, std::int64_t n, std::int64_t blocks, std::byte* out) noexcept;

// Row r (< 16) of a group back to its plain blocks, byte for byte.
void deinterleave_row(const std::byte* group, std::int64_t blocks, int r, BlockQ4_K* out) noexcept;
void deinterleave_row(const std::byte* group, std::int64_t blocks, int r, BlockQ5_K* out) noexcept;
void deinterleave_row(const std::byte* group, std::int64_t blocks, int r, BlockQ6_K* out) noexcept;

void gemm(const InterleavedGemm<BlockQ4_K>& g) noexcept;
void gemm(const InterleavedGemm<BlockQ5_K>& g) noexcept;
void gemm(const InterleavedGemm<BlockQ6_K>& g) noexcept;

// The AVX2 kernel (without VNNI), the same bits as the AVX-512 one; defined where
// FORGE_INTERLEAVED_AVX2. gemm above is this one where the build has no AVX-512 VNNI.
namespace avx2 {
void gemm(const InterleavedGemm<BlockQ4_K>& g) noexcept;
void gemm(const InterleavedGemm<BlockQ5_K>& g) noexcept;
void gemm(const InterleavedGemm<BlockQ6_K>& g) noexcept;
}  // namespace avx2

}  // namespace simd

}  // namespace forge::kernels
