// Where things lie in one super-block of a 16-row group of the interleaved Q4_K / Q5_K / Q6_K
// layout (kernels/quant_gemm_interleaved_k.h describes it): named once for the code that
// writes it and both kernels that read it (quant_gemm_interleaved_k.cpp: the repacking and the
// AVX-512 VNNI kernel; quant_gemm_interleaved_k_avx2.cpp: the AVX2 kernel). Offsets in bytes
// from the super-block's start. Constants only, so the AVX2 file, compiled with fewer
// instruction sets, shares nothing but numbers.
#pragma once

#include "kernels/quant_blocks.h"
#include "kernels/quant_gemm_interleaved_k.h"

#include <cstddef>
#include <type_traits>

namespace forge::kernels::simd::interleaved_k {

inline constexpr int kSlices = 8;                  // 32-element slices of a super-block
inline constexpr std::size_t kQuadBytes = 64;      // one quad: four quant bytes of each of the 16 rows
inline constexpr std::size_t kSliceBytes = 4 * kQuadBytes;  // a slice's low nibbles: four quads
inline constexpr std::size_t kQuantBytes = kSlices * kSliceBytes;

// The bits above the low nibble of each code (Q5_K one, Q6_K two), in 64-byte runs after the
// quants: one run per slice (Q5_K, operand i at bit i of each byte) or two (Q6_K, operand
// i = 4h + m in run h at bits 2m, 2m+1).
template <typename Block>
inline constexpr int kHighBits = std::is_same_v<Block, BlockQ6_K> ? 2 : std::is_same_v<Block, BlockQ5_K> ? 1 : 0;

// The byte offset of the 64-byte run holding the high bits of operand i of slice s, and the
// bit within each of its bytes.
template <typename Block>
constexpr std::size_t high_run(int s, int i) {
    return kQuantBytes + static_cast<std::size_t>(kHighBits<Block> == 1 ? s : 2 * s + i / 4) * 64;
}
template <typename Block>
constexpr int high_shift(int i) {
    return kHighBits<Block> == 1 ? i : 2 * (i % 4);
}

// Then the sub-block scales (Q4_K / Q5_K: [8][16] bytes; Q6_K: [16][16] int8), the Q4_K / Q5_K
// mins ([4 pairs][16 rows][2] bytes), and d as [16] f16 (then Q4_K / Q5_K's dmin [16]).
template <typename Block>
inline constexpr std::size_t kScales = kQuantBytes + static_cast<std::size_t>(kHighBits<Block>) * kSlices * 64;
template <typename Block>
inline constexpr std::size_t kMins = kScales<Block> + 128;
template <typename Block>
inline constexpr std::size_t kD = std::is_same_v<Block, BlockQ6_K> ? kScales<Block> + 256 : kMins<Block> + 128;

static_assert(kD<BlockQ4_K> + 64 <= interleaved_k_superblock_bytes<BlockQ4_K>());
static_assert(kD<BlockQ5_K> + 64 <= interleaved_k_superblock_bytes<BlockQ5_K>());
static_assert(kD<BlockQ6_K> + 32 <= interleaved_k_superblock_bytes<BlockQ6_K>());

}  // namespace forge::kernels::simd::interleaved_k
