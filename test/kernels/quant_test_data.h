// Random quantized operands shared by the quantized dot and GEMM tests.
#pragma once

#include "kernels/half.h"
#include "kernels/quant_blocks.h"
#include "kernels/quantize.h"

#include <cstdint>
#include <random>
#include <span>
#include <type_traits>
#include <vector>

namespace forge::kernels {

// Random weight blocks: every quant bit pattern, scales of moderate size (finite, both signs;
// MXFP4's exponents 2^-8..2^8).
template <typename Block>
inline std::vector<Block> random_blocks(std::size_t count, std::mt19937& rng) {
    std::vector<Block> blocks(count);
    std::uniform_int_distribution<int> byte(0, 255);
    std::uniform_real_distribution<float> scale(-0.02f, 0.02f);
    auto* raw = reinterpret_cast<std::uint8_t*>(blocks.data());
    for (std::size_t i = 0; i < count * sizeof(Block); ++i) raw[i] = static_cast<std::uint8_t>(byte(rng));
    for (auto& b : blocks) {
        if constexpr (std::is_same_v<Block, BlockQ8_K>) b.d = scale(rng);
        else if constexpr (std::is_same_v<Block, BlockMXFP4>) b.e = static_cast<std::uint8_t>(120 + byte(rng) % 17);
        else b.d = f32_to_f16(scale(rng));
        if constexpr (requires { b.dmin; }) b.dmin = f32_to_f16(scale(rng));
        if constexpr (requires { b.m; }) b.m = f32_to_f16(scale(rng));
    }
    return blocks;
}

// Activations as the matmul makes them: random floats quantized with the reference encoder.
template <typename Act>
inline std::vector<Act> random_activations(std::size_t count, std::mt19937& rng) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(count * Act::kSize);
    for (auto& v : x) v = normal(rng);
    std::vector<Act> a(count);
    scalar::quantize(x, std::span<Act>(a));
    return a;
}

}  // namespace forge::kernels
