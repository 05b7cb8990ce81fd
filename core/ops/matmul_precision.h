// The arithmetic of a float matrix product: f32 throughout, or bf16 operands with f32 sums
// (kernels/matmul.h's matmul_bf16), the mixed precision `forge train gpt --precision bf16`
// trains in, as torch.autocast(cpu, bfloat16) does for matmuls.
#pragma once

#include <optional>
#include <string_view>

namespace forge {

enum class MatmulPrecision { f32, bf16 };

// "f32" or "bf16": the flag's values and the checkpoint's setting.
constexpr std::string_view matmul_precision_name(MatmulPrecision precision) {
    return precision == MatmulPrecision::bf16 ? "bf16" : "f32";
}

constexpr std::optional<MatmulPrecision> matmul_precision_named(std::string_view name) {
    if (name == "f32") return MatmulPrecision::f32;
    if (name == "bf16") return MatmulPrecision::bf16;
    return std::nullopt;
}

}  // namespace forge
