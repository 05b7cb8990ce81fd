// Differentiable reductions along one axis (see core/ops/reduce.h), plus whole-tensor sum
// and mean for losses.
#pragma once

#include "core/tensor.h"

namespace forge::ag {

Tensor sum(const Tensor& x, int axis, bool keepdim = false);
Tensor mean(const Tensor& x, int axis, bool keepdim = false);
Tensor max(const Tensor& x, int axis, bool keepdim = false);  // the gradient goes to the argmax
Tensor logsumexp(const Tensor& x, int axis, bool keepdim = false);

Tensor sum_all(const Tensor& x);   // rank 0
Tensor mean_all(const Tensor& x);  // rank 0

}  // namespace forge::ag
