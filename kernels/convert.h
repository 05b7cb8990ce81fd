// Row conversions between f32 and the 16-bit float formats. Bit-exact with kernels/half.h
// (round to nearest even, NaN kept quiet) in both backends.
#pragma once

#include <cstdint>
#include <span>

namespace forge::kernels {

namespace scalar {
void f32_to_f16(std::span<const float> src, std::span<std::uint16_t> dst) noexcept;
void f16_to_f32(std::span<const std::uint16_t> src, std::span<float> dst) noexcept;
void f32_to_bf16(std::span<const float> src, std::span<std::uint16_t> dst) noexcept;
void bf16_to_f32(std::span<const std::uint16_t> src, std::span<float> dst) noexcept;
}  // namespace scalar

namespace simd {
void f32_to_f16(std::span<const float> src, std::span<std::uint16_t> dst) noexcept;
void f16_to_f32(std::span<const std::uint16_t> src, std::span<float> dst) noexcept;
void f32_to_bf16(std::span<const float> src, std::span<std::uint16_t> dst) noexcept;
void bf16_to_f32(std::span<const std::uint16_t> src, std::span<float> dst) noexcept;
}  // namespace simd

}  // namespace forge::kernels
