// Differentiable matrix multiplication (see core/ops/matmul.h), batch axes broadcasting.
#pragma once

#include "core/tensor.h"

namespace forge::ag {

Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false);

// x·wᵀ + bias for weights stored [out, in] (PyTorch's nn.Linear); bias may be undefined.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias);

}  // namespace forge::ag
