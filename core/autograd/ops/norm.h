// Differentiable RMSNorm and LayerNorm over the last axis (see core/ops/norm.h); weight and
// bias may be undefined Tensors.
#pragma once

#include "core/tensor.h"

namespace forge::ag {

Tensor rmsnorm(const Tensor& x, const Tensor& weight, float eps = 1e-6f);
Tensor layernorm(const Tensor& x, const Tensor& weight, const Tensor& bias, float eps = 1e-5f);

}  // namespace forge::ag
