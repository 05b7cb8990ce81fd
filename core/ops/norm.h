// Normalization of an f32 tensor over its last axis.
//
// weight and bias are optional (pass an undefined Tensor{}); when given they are f32 vectors
// as long as the last axis.
#pragma once

#include "core/tensor.h"

namespace forge {

// x / sqrt(mean(x^2) + eps) * weight
Tensor rmsnorm(const Tensor& x, const Tensor& weight, float eps = 1e-6f);

// (x - mean(x)) / sqrt(var(x) + eps) * weight + bias, with the biased variance
Tensor layernorm(const Tensor& x, const Tensor& weight, const Tensor& bias, float eps = 1e-5f);

}  // namespace forge
