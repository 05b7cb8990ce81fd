// Differentiable 1-D convolution (see core/ops/conv1d.h): causal or valid padding, dilation,
// groups. The backward is a transposed convolution (the input gradient, one conv1d call) and
// per-tap matrix-vector products along time (the weight gradient), with no unfolded copy.
#pragma once

#include "core/ops/conv1d.h"
#include "core/tensor.h"

namespace forge::ag {

Tensor conv1d(const Tensor& x, const Tensor& weight, const Tensor& bias, Conv1dOptions options = {});

}  // namespace forge::ag
