// RMSNorm over the last axis: x / sqrt(mean(x²) + eps) · w. The weight "<name>.weight"
// starts at ones; a norm made without one (nanochat's parameter-free norm) multiplies by 1.
#pragma once

#include "core/tensor.h"
#include "nn/parameter_set.h"

#include <string>

namespace forge::nn {

struct RmsNorm {
    Tensor weight;  // [dim], or undefined for a parameter-free norm
    float eps = 1e-6f;

    static RmsNorm make(ParameterSet& params, const std::string& name, std::int64_t dim, float eps, bool learnable);
    Tensor operator()(const Tensor& x) const;
};

}  // namespace forge::nn
