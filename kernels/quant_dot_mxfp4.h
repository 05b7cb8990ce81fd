// The MXFP4 x Q8_0 dot product (ggml's ggml_vec_dot_mxfp4_q8_0), under the arithmetic contract
// of kernels/quant_dot.h: per block the exact integer Σ kMxfp4Values[q] · a, then the float term
// (dw · da) · isum with dw = e8m0_to_f32_half(e); scalar adds the terms in block order, simd
// lane-wise. Declared apart from quant_dot.h until MXFP4 is wired into the front-end
// (core/quant/block_types.h), when these two lines move there.
#pragma once

#include "kernels/quant_blocks.h"

#include <span>

namespace forge::kernels {

namespace scalar {
float dot(std::span<const BlockMXFP4> w, std::span<const BlockQ8_0> a) noexcept;
}  // namespace scalar

namespace simd {
float dot(std::span<const BlockMXFP4> w, std::span<const BlockQ8_0> a) noexcept;
}  // namespace simd

}  // namespace forge::kernels
