// IEEE 754 binary16 (f16) and bfloat16 (bf16) <-> binary32 conversions, bit-exact:
// round-to-nearest-even, overflow to infinity, gradual underflow through the f16 subnormals,
// NaN kept quiet with its sign and top payload bits (what x86 F16C's vcvtps2ph produces).
// Plain scalar code: the specification that vectorized conversions are tested against.
#pragma once

#include <bit>
#include <cstdint>

namespace forge::kernels {

using f16_bits = std::uint16_t;
using bf16_bits = std::uint16_t;

// Round the integer `value` right by `shift` bits to nearest, ties to even.
constexpr std::uint32_t shift_right_round_even(std::uint32_t value, unsigned shift) {
    const std::uint32_t kept = value >> shift;
    const std::uint32_t rest = value & ((1u << shift) - 1u);
    const std::uint32_t half = 1u << (shift - 1u);
    return kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
}

constexpr f16_bits f32_to_f16(float value) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
    const std::uint32_t sign = (bits >> 16) & 0x8000u;
    const std::uint32_t magnitude = bits & 0x7fffffffu;

    if (magnitude > 0x7f800000u) {  // NaN: quiet it, keep the top 10 payload bits
        return static_cast<f16_bits>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
    }
    if (magnitude >= 0x477ff000u) {  // >= 65520 rounds past 65504, the largest f16: infinity
        return static_cast<f16_bits>(sign | 0x7c00u);
    }
    if (magnitude >= 0x38800000u) {  // >= 2^-14: a normal f16. Rebias the exponent 127 -> 15;
        // a carry out of the mantissa correctly bumps the exponent.
        return static_cast<f16_bits>(sign | shift_right_round_even(magnitude - 0x38000000u, 13));
    }
    // Below 2^-14: an f16 subnormal (units of 2^-24) or zero.
    const std::uint32_t exponent = magnitude >> 23;
    if (exponent < 102) {  // < 2^-25: rounds to zero (2^-25 itself is a tie, and 0 is even)
        return static_cast<f16_bits>(sign);
    }
    const std::uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
    // value = significand * 2^(exponent-150) = significand * 2^(exponent-126) units of 2^-24.
    return static_cast<f16_bits>(sign | shift_right_round_even(significand, 126 - exponent));
}

constexpr float f16_to_f32(f16_bits half) {
    const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000u) << 16;
    const std::uint32_t exponent = (half >> 10) & 0x1fu;
    const std::uint32_t mantissa = half & 0x3ffu;

    if (exponent == 0x1fu) {  // infinity, or NaN: quieted (as IEEE 754 and F16C's vcvtph2ps do)
        const std::uint32_t quiet = mantissa != 0 ? 0x400000u : 0u;
        return std::bit_cast<float>(sign | 0x7f800000u | quiet | (mantissa << 13));
    }
    if (exponent != 0) {  // normal: rebias 15 -> 127
        return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
    }
    if (mantissa == 0) {
        return std::bit_cast<float>(sign);  // signed zero
    }
    // Subnormal: shift the leading one into the implicit position of an f32 normal.
    std::uint32_t shifted = mantissa;
    std::uint32_t f32_exponent = 113;  // 2^-14 biased by 127
    while ((shifted & 0x400u) == 0) {
        shifted <<= 1;
        --f32_exponent;
    }
    return std::bit_cast<float>(sign | (f32_exponent << 23) | ((shifted & 0x3ffu) << 13));
}

constexpr bf16_bits f32_to_bf16(float value) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u) {  // NaN: quiet it, keep sign and top payload
        return static_cast<bf16_bits>((bits >> 16) | 0x40u);
    }
    // Round to nearest even on the low 16 bits; a carry may reach infinity, as it should.
    return static_cast<bf16_bits>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

constexpr float bf16_to_f32(bf16_bits value) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(value) << 16);
}

// f32_to_bf16 as AVX-512 BF16's VCVTNE2PS2BF16 does it: an f32 subnormal becomes a zero of
// its sign instead of rounding (the operands of matmul_bf16, kernels/matmul.h).
constexpr bf16_bits f32_to_bf16_flushed(float value) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
    if ((bits & 0x7f800000u) == 0) return static_cast<bf16_bits>((bits >> 16) & 0x8000u);
    return f32_to_bf16(value);
}

}  // namespace forge::kernels
