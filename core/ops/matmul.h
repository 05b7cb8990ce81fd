// Matrix multiplication of tensors.
#pragma once

#include "core/ops/matmul_precision.h"
#include "core/tensor.h"

namespace forge {

// a[..., m, k] · b[..., k, n] -> [..., m, n] (f32). transpose_a / transpose_b use the
// operand's last two axes swapped, without copying: matmul(x, w, false, true) is x·wᵀ for
// weights w stored [n, k], the layout of linear layers. Batch axes (all but the last two)
// broadcast with NumPy rules; a rank-1 operand is not accepted (unsqueeze it).
//
// a must be f32; b is f32, or f16 when transpose_b is set (half-precision weights [n, k],
// widened on the fly). Any strides are accepted; the result is contiguous.
//
// With MatmulPrecision::bf16 (f32 operands only) both operands are rounded to bf16 as the
// kernel packs them and the sums stay f32 (kernels/matmul.h, matmul_bf16).
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false,
              MatmulPrecision precision = MatmulPrecision::f32);

}  // namespace forge
