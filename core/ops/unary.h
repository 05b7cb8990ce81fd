// Element-wise functions of one f32 tensor. The output is a fresh contiguous tensor of the
// same shape; the input may be any strided view.
#pragma once

#include "core/tensor.h"
#include "kernels/unary.h"

namespace forge {

using UnaryOp = kernels::UnaryOp;

Tensor unary(UnaryOp op, const Tensor& x);

Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);      // 1 / sqrt(x)
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor silu(const Tensor& x);       // x * sigmoid(x)
Tensor gelu_tanh(const Tensor& x);  // tanh approximation (GPT-2, gemma)
Tensor gelu_erf(const Tensor& x);   // exact, via erf (BERT, whisper)
Tensor relu(const Tensor& x);
Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);

Tensor operator-(const Tensor& x);  // neg

}  // namespace forge
