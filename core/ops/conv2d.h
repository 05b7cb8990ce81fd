// 2-D convolution over images (PyTorch's Conv2d, cross-correlation) with one stride and one
// zero padding for both axes, and groups (groups == C_in == C_out is a depthwise convolution).
#pragma once

#include "core/tensor.h"

#include <cstdint>

namespace forge {

struct Conv2dOptions {
    std::int64_t stride = 1;
    std::int64_t padding = 0;  // zeros on every side
    std::int64_t groups = 1;
};

// The output size along one axis: floor((size + 2*padding - kernel) / stride) + 1.
std::int64_t conv2d_out_size(std::int64_t size, std::int64_t kernel, const Conv2dOptions& options);

// x [B, C_in, H, W] (f32), weight [C_out, C_in/groups, KH, KW] (f32), bias [C_out] or an
// undefined Tensor -> [B, C_out, H_out, W_out].
Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias, Conv2dOptions options = {});

}  // namespace forge
