// Differentiable 1-D convolution (see core/ops/conv1d.h): causal or valid padding, dilation,
// groups. The backward is built from matmuls over an unfolded ("im2col") view of the input.
#pragma once

#include "core/ops/conv1d.h"
#include "core/tensor.h"

namespace forge::ag {

Tensor conv1d(const Tensor& x, const Tensor& weight, const Tensor& bias, Conv1dOptions options = {});

}  // namespace forge::ag
