// A 2-D convolution over images as PyTorch's nn.Conv2d with a square kernel: "<name>.weight"
// [out, in/groups, k, k] and, when asked for, "<name>.bias" [out], both drawn from PyTorch's
// default U(±1/sqrt(fan_in)), fan_in = in/groups · k · k. The math is ag::conv2d's (stride,
// padding, groups in the options).
#pragma once

#include "core/autograd/ops/conv2d.h"
#include "core/tensor.h"
#include "nn/parameter_set.h"

#include <string>

namespace forge::nn {

struct Conv2d {
    Tensor weight;  // [out, in/groups, k, k]
    Tensor bias;    // [out], or undefined
    Conv2dOptions options;

    static Conv2d make(ParameterSet& params, const std::string& name, std::int64_t in, std::int64_t out,
                       std::int64_t kernel, const Conv2dOptions& options, bool with_bias = true);
    Tensor operator()(const Tensor& x) const;  // [B, in, H, W] -> [B, out, H_out, W_out]
};

}  // namespace forge::nn
