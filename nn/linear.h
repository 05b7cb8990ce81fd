// y = x·Wᵀ (+ b) with W stored [out, in] like PyTorch's nn.Linear and GGUF's matrices
// (GGUF lists the dims innermost first: [in, out]). The weight is "<name>.weight", the
// optional bias "<name>.bias" (zeros, or drawn as `bias_init` says).
#pragma once

#include "core/tensor.h"
#include "nn/parameter_set.h"

#include <string>

namespace forge::nn {

struct Linear {
    Tensor weight;  // [out, in]
    Tensor bias;    // [out], or undefined

    static Linear make(ParameterSet& params, const std::string& name, std::int64_t in, std::int64_t out,
                       const Init& init, bool with_bias = false);
    // With a bias drawn as `bias_init` says: PyTorch's nn.Linear draws weight and bias alike,
    // make(params, name, in, out, Init::fan_in_uniform(in), Init::fan_in_uniform(in)).
    static Linear make(ParameterSet& params, const std::string& name, std::int64_t in, std::int64_t out,
                       const Init& init, const Init& bias_init);
    Tensor operator()(const Tensor& x) const;  // [..., in] -> [..., out]
};

}  // namespace forge::nn
