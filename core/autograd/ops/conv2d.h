// Differentiable 2-D convolution (see core/ops/conv2d.h): stride, zero padding, groups. The
// input gradient is one conv2d call (a transposed convolution: g spread out by the stride,
// taps reversed, channel axes swapped); the weight gradient is, tap by tap, a product of g with
// the strided view of the padded input that tap read.
#pragma once

#include "core/ops/conv2d.h"
#include "core/tensor.h"

namespace forge::ag {

Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias, Conv2dOptions options = {});

}  // namespace forge::ag
