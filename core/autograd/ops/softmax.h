// Differentiable softmax and log-softmax over the last axis, with scale and causal mask
// (see core/ops/softmax.h). Masked entries get no gradient.
#pragma once

#include "core/tensor.h"

namespace forge::ag {

Tensor softmax(const Tensor& x, float scale = 1.0f, bool causal = false);
Tensor log_softmax(const Tensor& x, float scale = 1.0f, bool causal = false);

}  // namespace forge::ag
