// Copies: materialize a strided view contiguously, and convert between dtypes. These are
// what Tensor::contiguous(), clone() and to() are made of, so they sit beside the tensor in
// core/ rather than with the ops in core/ops/ (which build on Tensor): no include points up.
#pragma once

#include "core/tensor.h"

namespace forge {

// A fresh contiguous tensor with the same values (any dtype; quantized rows are copied whole).
Tensor copy_to_contiguous(const Tensor& x);

// Values converted to `dtype`: between the float types (f32, f16, bf16, f64) and the integer
// types; float -> integer truncates toward zero like a C++ cast. Quantized dtypes are encoded
// and decoded by the quantization module, not here.
Tensor convert_dtype(const Tensor& x, DType dtype);

}  // namespace forge
