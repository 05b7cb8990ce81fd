// Reductions of an f32 tensor along one axis (negative axes count from the end). The axis
// is removed from the shape, or kept with size 1 when keepdim is true.
//
// Results are bitwise identical for any thread count: a long axis is summed in chunks whose
// boundaries depend only on its length, and the partial results are combined in order.
#pragma once

#include "core/tensor.h"
#include "kernels/reduce.h"

namespace forge {

Tensor sum(const Tensor& x, int axis, bool keepdim = false);
Tensor mean(const Tensor& x, int axis, bool keepdim = false);
Tensor max(const Tensor& x, int axis, bool keepdim = false);        // NaN if any element is NaN
Tensor logsumexp(const Tensor& x, int axis, bool keepdim = false);  // log(sum(exp(x))), stable

// I64 indices of the largest element; the lowest index wins ties, the first NaN wins.
Tensor argmax(const Tensor& x, int axis, bool keepdim = false);

}  // namespace forge
