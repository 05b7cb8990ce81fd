// From a DType to the kernels' block struct: the one switch that knows which GGML formats
// forge can decode, encode and multiply, and which activation format each multiplies with
// (Q8_0 for 32-element formats, Q8_K for 256-element ones, as ggml's vec_dot_type).
#pragma once

#include "core/dtype.h"
#include "core/error.h"
#include "kernels/quant_blocks.h"

#include <type_traits>

namespace forge::quant {

template <typename Block> struct BlockTag {
    using type = Block;
};

// The activation block a weight block is multiplied with.
template <typename Block>
using ActivationBlock = std::conditional_t<Block::kSize == 32, kernels::BlockQ8_0, kernels::BlockQ8_K>;

// Formats with a ggml reference encoder that forge reproduces byte for byte.
template <typename Block>
inline constexpr bool kHasEncoder = !std::is_same_v<Block, kernels::BlockIQ4_NL> &&
                                    !std::is_same_v<Block, kernels::BlockIQ4_XS> &&
                                    !std::is_same_v<Block, kernels::BlockMXFP4>;

// Call f(BlockTag<Block>{}) for a block-format dtype forge implements; throw for any other
// (plain types included: they have no blocks).
template <typename F>
decltype(auto) visit_block_type(DType dtype, F&& f) {
    using namespace kernels;
    switch (dtype) {
        case DType::Q4_0: return f(BlockTag<BlockQ4_0>{});
        case DType::Q4_1: return f(BlockTag<BlockQ4_1>{});
        case DType::Q5_0: return f(BlockTag<BlockQ5_0>{});
        case DType::Q5_1: return f(BlockTag<BlockQ5_1>{});
        case DType::Q8_0: return f(BlockTag<BlockQ8_0>{});
        case DType::Q2_K: return f(BlockTag<BlockQ2_K>{});
        case DType::Q3_K: return f(BlockTag<BlockQ3_K>{});
        case DType::Q4_K: return f(BlockTag<BlockQ4_K>{});
        case DType::Q5_K: return f(BlockTag<BlockQ5_K>{});
        case DType::Q6_K: return f(BlockTag<BlockQ6_K>{});
        case DType::Q8_K: return f(BlockTag<BlockQ8_K>{});
        case DType::IQ4_NL: return f(BlockTag<BlockIQ4_NL>{});
        case DType::IQ4_XS: return f(BlockTag<BlockIQ4_XS>{});
        case DType::TQ1_0: return f(BlockTag<BlockTQ1_0>{});
        case DType::TQ2_0: return f(BlockTag<BlockTQ2_0>{});
        case DType::MXFP4: return f(BlockTag<BlockMXFP4>{});
        // Formats forge does not implement (each is bit-exact or absent), and plain types.
        case DType::Q8_1: case DType::IQ2_XXS: case DType::IQ2_XS: case DType::IQ3_XXS: case DType::IQ1_S:
        case DType::IQ3_S: case DType::IQ2_S: case DType::IQ1_M:
        case DType::F32: case DType::F16: case DType::BF16: case DType::F64: case DType::I8: case DType::I16:
        case DType::I32: case DType::I64: case DType::U8:
            break;
    }
    fail("block format {} is not supported by forge", dtype_name(dtype));
}

}  // namespace forge::quant
