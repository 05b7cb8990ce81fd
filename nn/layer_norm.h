// LayerNorm over the last axis: (x - mean) / sqrt(var + eps) · w + b, with "<name>.weight"
// (ones) and "<name>.bias" (zeros), PyTorch's nn.LayerNorm.
#pragma once

#include "core/tensor.h"
#include "nn/parameter_set.h"

#include <string>

namespace forge::nn {

struct LayerNorm {
    Tensor weight, bias;  // [dim]
    float eps = 1e-5f;

    static LayerNorm make(ParameterSet& params, const std::string& name, std::int64_t dim, float eps = 1e-5f);
    Tensor operator()(const Tensor& x) const;
};

}  // namespace forge::nn
