#include "kernels/convert.h"

#include "kernels/half.h"

namespace forge::kernels::scalar {

void f32_to_f16(std::span<const float> src, std::span<std::uint16_t> dst) noexcept {
    for (std::size_t i = 0; i < src.size(); ++i) dst[i] = kernels::f32_to_f16(src[i]);
}

void f16_to_f32(std::span<const std::uint16_t> src, std::span<float> dst) noexcept {
    for (std::size_t i = 0; i < src.size(); ++i) dst[i] = kernels::f16_to_f32(src[i]);
}

void f32_to_bf16(std::span<const float> src, std::span<std::uint16_t> dst) noexcept {
    for (std::size_t i = 0; i < src.size(); ++i) dst[i] = kernels::f32_to_bf16(src[i]);
}

void bf16_to_f32(std::span<const std::uint16_t> src, std::span<float> dst) noexcept {
    for (std::size_t i = 0; i < src.size(); ++i) dst[i] = kernels::bf16_to_f32(src[i]);
}

}  // namespace forge::kernels::scalar
