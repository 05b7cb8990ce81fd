// A 1-D convolution over time as PyTorch's nn.Conv1d: "<name>.weight" [out, in/groups, k] and,
// when asked for, "<name>.bias" [out], both drawn from PyTorch's default U(±1/sqrt(fan_in)),
// fan_in = in/groups · k. The math is ag::conv1d's (dilation, groups, padding in the options).
#pragma once

#include "core/autograd/ops/conv1d.h"
#include "core/tensor.h"
#include "nn/parameter_set.h"

#include <string>

namespace forge::nn {

struct Conv1d {
    Tensor weight;  // [out, in/groups, k]
    Tensor bias;    // [out], or undefined
    Conv1dOptions options;

    static Conv1d make(ParameterSet& params, const std::string& name, std::int64_t in, std::int64_t out,
                       std::int64_t kernel, const Conv1dOptions& options, bool with_bias = true);
    Tensor operator()(const Tensor& x) const;  // [B, in, T] -> [B, out, T_out]

    // A 1x1 convolution on features last, [..., in] -> [..., out]: the weight [out, in, 1] as a
    // linear layer's [out, in], which spares the [B, T, in] input a transpose each way.
    Tensor pointwise(const Tensor& x) const;
};

}  // namespace forge::nn
