// The GGML block formats, byte for byte as ggml lays them out (ggml/src/ggml-common.h).
// A quantized row is an array of these blocks; each block packs `kSize` elements into
// sizeof(Block) bytes. Scales stored as IEEE half precision are kept as raw bits (f16_bits)
// and converted with kernels/half.h, exactly as ggml's GGML_FP16_TO_FP32 does.
#pragma once

#include "kernels/half.h"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

namespace forge::kernels {

// The four bytes at p as one word, at any alignment: how the interleaved layouts move and
// broadcast four quants at a time (one definition for the repacking and every kernel).
inline std::uint32_t load_u32(const void* p) {
    std::uint32_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

inline constexpr int kSuperBlock = 256;  // QK_K: the K-quants' super-block

// ---- 32-element formats --------------------------------------------------------------------

// x = d * (q - 8), q in [0, 16): byte j holds element j (low nibble) and j + 16 (high nibble).
struct BlockQ4_0 {
    static constexpr int kSize = 32;
    f16_bits d;
    std::array<std::uint8_t, 16> qs;
};
static_assert(sizeof(BlockQ4_0) == 18);

// x = d * q + m, q in [0, 16).
struct BlockQ4_1 {
    static constexpr int kSize = 32;
    f16_bits d;
    f16_bits m;
    std::array<std::uint8_t, 16> qs;
};
static_assert(sizeof(BlockQ4_1) == 20);

// x = d * (q - 16), q in [0, 32): low nibbles as in Q4_0, bit 4 of element j in bit j of qh.
struct BlockQ5_0 {
    static constexpr int kSize = 32;
    f16_bits d;
    std::array<std::uint8_t, 4> qh;
    std::array<std::uint8_t, 16> qs;
};
static_assert(sizeof(BlockQ5_0) == 22);

// x = d * q + m, q in [0, 32).
struct BlockQ5_1 {
    static constexpr int kSize = 32;
    f16_bits d;
    f16_bits m;
    std::array<std::uint8_t, 4> qh;
    std::array<std::uint8_t, 16> qs;
};
static_assert(sizeof(BlockQ5_1) == 24);

// x = d * q, q in [-128, 127]. Also the activation format for the 32-element weight formats.
struct BlockQ8_0 {
    static constexpr int kSize = 32;
    f16_bits d;
    std::array<std::int8_t, 32> qs;
};
static_assert(sizeof(BlockQ8_0) == 34);

// x = d * kIq4nlValues[q]: 4-bit indices into a non-linear table.
struct BlockIQ4_NL {
    static constexpr int kSize = 32;
    f16_bits d;
    std::array<std::uint8_t, 16> qs;
};
static_assert(sizeof(BlockIQ4_NL) == 18);

// x = kMxfp4Values[q] * 2^(e - 128): OCP MXFP4, four-bit E2M1 codes (ggml keeps their values
// doubled, as integers, and halves the scale) and one E8M0 exponent byte; element j in the
// low nibble of qs[j], j + 16 in the high one.
struct BlockMXFP4 {
    static constexpr int kSize = 32;
    std::uint8_t e;
    std::array<std::uint8_t, 16> qs;
};
static_assert(sizeof(BlockMXFP4) == 17);

// ---- 256-element super-block formats (K-quants, IQ4_XS, ternary) ----------------------------

// 16 sub-blocks of 16: x = d * (scales[j] & 15) * q - dmin * (scales[j] >> 4), q in [0, 4).
struct BlockQ2_K {
    static constexpr int kSize = kSuperBlock;
    std::array<std::uint8_t, 16> scales;
    std::array<std::uint8_t, 64> qs;
    f16_bits d;
    f16_bits dmin;
};
static_assert(sizeof(BlockQ2_K) == 84);

// 16 sub-blocks of 16: x = d * (s_j - 32) * (q - 4), q in [0, 8) from 2 low bits + hmask bit;
// the 16 six-bit scales s_j are packed into 12 bytes.
struct BlockQ3_K {
    static constexpr int kSize = kSuperBlock;
    std::array<std::uint8_t, 32> hmask;
    std::array<std::uint8_t, 64> qs;
    std::array<std::uint8_t, 12> scales;
    f16_bits d;
};
static_assert(sizeof(BlockQ3_K) == 110);

// 8 sub-blocks of 32: x = d * sc_j * q - dmin * m_j, q in [0, 16); six-bit sc_j, m_j in 12 bytes.
struct BlockQ4_K {
    static constexpr int kSize = kSuperBlock;
    f16_bits d;
    f16_bits dmin;
    std::array<std::uint8_t, 12> scales;
    std::array<std::uint8_t, 128> qs;
};
static_assert(sizeof(BlockQ4_K) == 144);

// As Q4_K with a fifth bit per element in qh: q in [0, 32).
struct BlockQ5_K {
    static constexpr int kSize = kSuperBlock;
    f16_bits d;
    f16_bits dmin;
    std::array<std::uint8_t, 12> scales;
    std::array<std::uint8_t, 32> qh;
    std::array<std::uint8_t, 128> qs;
};
static_assert(sizeof(BlockQ5_K) == 176);

// 16 sub-blocks of 16: x = d * scales[j] * (q - 32), q in [0, 64) from 4 low + 2 high bits.
struct BlockQ6_K {
    static constexpr int kSize = kSuperBlock;
    std::array<std::uint8_t, 128> ql;
    std::array<std::uint8_t, 64> qh;
    std::array<std::int8_t, 16> scales;
    f16_bits d;
};
static_assert(sizeof(BlockQ6_K) == 210);

// x = d * q with an f32 scale, plus the sums of each 16 quants (for the K-quants' mins).
// The activation format for the 256-element weight formats.
struct BlockQ8_K {
    static constexpr int kSize = kSuperBlock;
    float d;
    std::array<std::int8_t, 256> qs;
    std::array<std::int16_t, 16> bsums;
};
static_assert(sizeof(BlockQ8_K) == 292);

// 8 sub-blocks of 32: x = d * (ls_j - 32) * kIq4nlValues[q], six-bit ls_j split over two fields.
struct BlockIQ4_XS {
    static constexpr int kSize = kSuperBlock;
    f16_bits d;
    std::uint16_t scales_h;
    std::array<std::uint8_t, 4> scales_l;
    std::array<std::uint8_t, 128> qs;
};
static_assert(sizeof(BlockIQ4_XS) == 136);

// Ternary x = d * t, t in {-1, 0, 1}: five trits per byte in qs (as a base-3 fraction of 256),
// four per byte in qh.
struct BlockTQ1_0 {
    static constexpr int kSize = kSuperBlock;
    std::array<std::uint8_t, 48> qs;
    std::array<std::uint8_t, 4> qh;
    f16_bits d;
};
static_assert(sizeof(BlockTQ1_0) == 54);

// Ternary x = d * (q - 1), q in [0, 3) in 2 bits.
struct BlockTQ2_0 {
    static constexpr int kSize = kSuperBlock;
    std::array<std::uint8_t, 64> qs;
    f16_bits d;
};
static_assert(sizeof(BlockTQ2_0) == 66);

// The 16 levels of IQ4_NL and IQ4_XS (ggml's kvalues_iq4nl).
inline constexpr std::array<std::int8_t, 16> kIq4nlValues = {-127, -104, -83, -65, -49, -35, -22, -10,
                                                             1,    13,   25,  38,  53,  69,  89,  113};

// The 16 E2M1 values of MXFP4, doubled (ggml's kvalues_mxfp4).
inline constexpr std::array<std::int8_t, 16> kMxfp4Values = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

// MXFP4's scale 2^(e - 128) (half of E8M0's 2^(e - 127), matching the doubled values) built
// from bits as ggml's GGML_E8M0_TO_FP32_HALF does: an f32 subnormal for e = 0 and 1, otherwise
// the exponent field e - 1. e = 255 gives 2^127, not NaN.
constexpr float e8m0_to_f32_half(std::uint8_t e) {
    const std::uint32_t bits = e < 2 ? 0x00200000u << e : static_cast<std::uint32_t>(e - 1) << 23;
    return std::bit_cast<float>(bits);
}

// The K-quants' six-bit scale j and min j (of 8) from their 12-byte packing (ggml's
// get_scale_min_k4): the first four live in the low six bits of bytes 0-3 and 4-7, the last
// four split into a nibble (bytes 8-11) and the two spare top bits of bytes 0-7.
struct ScaleMin {
    std::uint8_t scale;
    std::uint8_t min;
};
constexpr ScaleMin unpack_scale_min_k4(int j, const std::array<std::uint8_t, 12>& q) {
    const auto u = static_cast<std::size_t>(j);
    if (j < 4) return {static_cast<std::uint8_t>(q[u] & 63), static_cast<std::uint8_t>(q[u + 4] & 63)};
    return {static_cast<std::uint8_t>((q[u + 4] & 0xF) | ((q[u - 4] >> 6) << 4)),
            static_cast<std::uint8_t>((q[u + 4] >> 4) | ((q[u] >> 6) << 4))};
}

// Q3_K's sixteen six-bit scales (still biased by 32) from their 12-byte packing: low nibbles
// of scales 0-7 in bytes 0-7, of 8-15 in the high nibbles of bytes 0-7, and the top two bits
// of scale j in bits 2*(j/4) of byte 8 + j%4.
constexpr int unpack_scale_q3_k(int j, const std::array<std::uint8_t, 12>& s) {
    const auto u = static_cast<std::size_t>(j);
    const int low = j < 8 ? (s[u] & 0xF) : (s[u - 8] >> 4);
    const int high = (s[8 + u % 4] >> (2 * (j / 4))) & 3;
    return low | (high << 4);
}

}  // namespace forge::kernels
