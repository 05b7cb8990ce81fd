#include "core/autograd/ops/dropout.h"

#include "core/autograd/ops/pointwise.h"
#include "core/error.h"
#include "core/random/random_tensor.h"

namespace forge::ag {

Tensor dropout(const Tensor& x, float p, std::uint64_t key, bool training) {
    check(p >= 0.0f && p < 1.0f, "dropout probability must be in [0, 1), got {}", p);
    if (!training || p == 0.0f) return x;
    // The mask is a constant of the graph: mul's VJP multiplies the gradient by it.
    return ag::mul(x, random::dropout_mask(x.shape(), key, 1.0f - p));
}

}  // namespace forge::ag
