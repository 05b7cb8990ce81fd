// Differentiable rotary position embedding (see core/ops/rope.h). A rotation is orthogonal,
// so its VJP is the inverse rotation of the gradient.
#pragma once

#include "core/ops/rope.h"
#include "core/tensor.h"

namespace forge::ag {

Tensor rope(const Tensor& x, const Tensor& positions, const RopeConfig& config = {});

}  // namespace forge::ag
