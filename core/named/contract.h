// The untyped work behind named::dot: contract axis `x_axis` of x with axis `w_axis` of w.
// Result axes: x's others in order, then w's others in order.
#pragma once

#include "core/tensor.h"

namespace forge::named::detail {

Tensor contract(const Tensor& x, int x_axis, const Tensor& w, int w_axis);

}  // namespace forge::named::detail
