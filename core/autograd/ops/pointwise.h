// Differentiable element-wise ops: the functions of core/ops/unary.h and core/ops/binary.h,
// recording a node when an input requires a gradient. Binary ops broadcast like NumPy; the
// gradient of a broadcast operand is summed back to its shape.
//
// These are free functions, not operators: forge's plain Tensor operators (core/ops/binary.h)
// stay graph-free, and the typed layer (core/named/) supplies operators that call these.
#pragma once

#include "core/tensor.h"

namespace forge::ag {

Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor silu(const Tensor& x);
Tensor gelu_tanh(const Tensor& x);
Tensor gelu_erf(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);

Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);  // ties split the gradient evenly, as in PyTorch
Tensor minimum(const Tensor& a, const Tensor& b);

Tensor add(const Tensor& x, float c);
Tensor mul(const Tensor& x, float c);

}  // namespace forge::ag
