// Batch normalisation over the channel axis of [B, C, T] in inference form: the running
// statistics a trained model stores (PyTorch's BatchNorm1d in eval mode),
//
//   y = (x - running_mean) / sqrt(running_var + eps) · weight + bias
//
// with "<name>.weight", "<name>.bias" (trainable) and "<name>.running_mean",
// "<name>.running_var" (frozen). Training with batch statistics is not here.
#pragma once

#include "core/tensor.h"
#include "nn/parameter_set.h"

#include <string>

namespace forge::nn {

struct BatchNorm {
    Tensor weight, bias, running_mean, running_var;  // [C]
    float eps = 1e-5f;

    static BatchNorm make(ParameterSet& params, const std::string& name, std::int64_t channels, float eps = 1e-5f);
    Tensor operator()(const Tensor& x) const;  // [B, C, T] -> [B, C, T]
};

}  // namespace forge::nn
