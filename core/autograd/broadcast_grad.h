// The gradient of a broadcast: a tensor that was stretched to a larger shape receives the sum
// of the gradients of all its copies.
#pragma once

#include "core/tensor.h"

namespace forge::ag {

// Sum `grad` down to `shape` (which must broadcast to grad's shape): leading axes that the
// broadcast added are summed away, axes of size 1 that it stretched are summed with keepdim.
Tensor sum_to_shape(const Tensor& grad, const Shape& shape);

}  // namespace forge::ag
