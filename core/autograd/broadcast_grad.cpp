#include "core/autograd/broadcast_grad.h"

#include "core/error.h"
#include "core/ops/reduce.h"

namespace forge::ag {

Tensor sum_to_shape(const Tensor& grad, const Shape& shape) {
    if (grad.shape() == shape) return grad;
    Tensor result = grad;
    const int extra = grad.rank() - shape.rank();
    check(extra >= 0, "sum_to_shape: gradient of rank {} for a tensor of rank {}", grad.rank(), shape.rank());
    for (int axis = 0; axis < extra; ++axis) result = sum(result, 0);
    for (int axis = 0; axis < shape.rank(); ++axis) {
        if (shape[axis] == 1 && result.size(axis) != 1) result = sum(result, axis, /*keepdim=*/true);
    }
    check(result.shape() == shape, "sum_to_shape: {} does not broadcast to {}", shape.to_string(),
          grad.shape().to_string());
    return result;
}

}  // namespace forge::ag
