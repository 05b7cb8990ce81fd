// Element-wise functions of two f32 tensors with NumPy broadcasting. The output is a fresh
// contiguous tensor of the broadcast shape; inputs may be any strided views.
#pragma once

#include "core/tensor.h"
#include "kernels/binary.h"

namespace forge {

using BinaryOp = kernels::BinaryOp;

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b);

Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);  // NaN if either is NaN
Tensor minimum(const Tensor& a, const Tensor& b);  // NaN if either is NaN

Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);

// With a float, which acts as a rank-0 tensor.
Tensor operator+(const Tensor& a, float b);
Tensor operator-(const Tensor& a, float b);
Tensor operator*(const Tensor& a, float b);
Tensor operator/(const Tensor& a, float b);
Tensor operator+(float a, const Tensor& b);
Tensor operator-(float a, const Tensor& b);
Tensor operator*(float a, const Tensor& b);
Tensor operator/(float a, const Tensor& b);

}  // namespace forge
