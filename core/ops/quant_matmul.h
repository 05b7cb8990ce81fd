// Matrix multiplication with block-quantized weights: y = x · Wᵀ for linear layers whose
// weights W [n, k] are stored in a GGML block format. As ggml does, each row of x is first
// quantized to the format's activation blocks (Q8_0 or Q8_K), then every output is an
// integer-accumulated dot product (kernels/quant_dot.h). Rows of W are split over the
// thread pool; results do not depend on the thread count.
#pragma once

#include "core/tensor.h"

namespace forge {

// x [..., k] f32, w [n, k] quantized  ->  y [..., n] f32.
Tensor quant_matmul(const Tensor& x, const Tensor& w);

// The same into an existing contiguous f32 tensor y [..., n]. Once warmed up (the
// activation scratch has grown to size) it allocates nothing: the decode path (one row of
// x) calls this per token.
void quant_matmul_into(const Tensor& x, const Tensor& w, const Tensor& y);

}  // namespace forge
