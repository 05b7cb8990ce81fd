#include "core/autograd/ops/matmul.h"

#include "core/autograd/autocast.h"
#include "core/autograd/broadcast_grad.h"
#include "core/autograd/ops/pointwise.h"
#include "core/autograd/variable.h"
#include "core/ops/matmul.h"

#include <vector>

namespace forge::ag {

// With A' = op(A), B' = op(B) and C = A'·B': dA' = G·B'ᵀ and dB' = A'ᵀ·G. Each product is
// one matmul call with the right transpose flags, so nothing is ever transposed in memory;
// batch axes that broadcast are summed back afterwards. The backward's products run in the
// forward's precision (core/autograd/autocast.h); f16 weights always run in f32.
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b) {
    const MatmulPrecision precision = b.dtype() == DType::F32 ? autocast_precision() : MatmulPrecision::f32;
    Tensor y = forge::matmul(a, b, transpose_a, transpose_b, precision);
    if (!any_requires_grad({&a, &b})) return y;
    return record("matmul", y, {&a, &b},
                  [a = detach(a), b = detach(b), ta = transpose_a, tb = transpose_b, precision](const Tensor& g,
                                                                                               InputMask wanted) {
                      Tensor ga, gb;
                      if (wanted[0]) {
                          ga = ta ? forge::matmul(b, g, tb, true, precision) : forge::matmul(g, b, false, !tb, precision);
                          ga = sum_to_shape(ga, a.shape());
                      }
                      if (wanted[1]) {
                          gb = tb ? forge::matmul(g, a, true, ta, precision) : forge::matmul(a, g, !ta, false, precision);
                          gb = sum_to_shape(gb, b.shape());
                      }
                      return std::vector<Tensor>{ga, gb};
                  });
}

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
    const Tensor y = ag::matmul(x, weight, false, true);
    return bias.defined() ? ag::add(y, bias) : y;
}

}  // namespace forge::ag
