#include "core/autograd/ops/norm.h"

#include "core/autograd/broadcast_grad.h"
#include "core/autograd/variable.h"
#include "core/ops/binary.h"
#include "core/ops/norm.h"
#include "core/ops/reduce.h"
#include "core/ops/unary.h"

#include <vector>

namespace forge::ag {
namespace {

// With n = x̂ the normalized input and gn = dL/dn, both norms share one shape of gradient:
// dx = r * (gn - n * mean(gn * n)), minus mean(gn) as well for LayerNorm (which subtracted
// the mean in its forward). r is 1/sqrt(mean square + eps) resp. 1/sqrt(variance + eps).
Tensor normalized_input_grad(const Tensor& gn, const Tensor& n, const Tensor& r, bool centered) {
    Tensor inner = forge::sub(gn, forge::mul(n, forge::mean(forge::mul(gn, n), -1, true)));
    if (centered) inner = forge::sub(inner, forge::mean(gn, -1, true));
    return forge::mul(inner, r);
}

Tensor scaled_grad(const Tensor& g, const Tensor& weight) {
    return weight.defined() ? forge::mul(g, weight) : g;
}

}  // namespace

Tensor rmsnorm(const Tensor& x, const Tensor& weight, float eps) {
    Tensor y = forge::rmsnorm(x, weight, eps);
    if (!any_requires_grad({&x, &weight})) return y;
    return record("rmsnorm", y, {&x, &weight},
                  [x = detach(x), w = detach(weight), eps](const Tensor& g, InputMask wanted) {
                      const Tensor r = forge::rsqrt(forge::operator+(forge::mean(forge::mul(x, x), -1, true), eps));
                      const Tensor n = forge::mul(x, r);
                      return std::vector<Tensor>{
                          wanted[0] ? normalized_input_grad(scaled_grad(g, w), n, r, false) : Tensor{},
                          wanted[1] ? sum_to_shape(forge::mul(g, n), w.shape()) : Tensor{}};
                  });
}

Tensor layernorm(const Tensor& x, const Tensor& weight, const Tensor& bias, float eps) {
    Tensor y = forge::layernorm(x, weight, bias, eps);
    if (!any_requires_grad({&x, &weight, &bias})) return y;
    return record("layernorm", y, {&x, &weight, &bias},
                  [x = detach(x), w = detach(weight), b_shape = bias.shape(), eps](const Tensor& g, InputMask wanted) {
                      const Tensor centered = forge::sub(x, forge::mean(x, -1, true));
                      const Tensor variance = forge::mean(forge::mul(centered, centered), -1, true);
                      const Tensor r = forge::rsqrt(forge::operator+(variance, eps));
                      const Tensor n = forge::mul(centered, r);
                      return std::vector<Tensor>{
                          wanted[0] ? normalized_input_grad(scaled_grad(g, w), n, r, true) : Tensor{},
                          wanted[1] ? sum_to_shape(forge::mul(g, n), w.shape()) : Tensor{},
                          wanted[2] ? sum_to_shape(g, b_shape) : Tensor{}};
                  });
}

}  // namespace forge::ag
