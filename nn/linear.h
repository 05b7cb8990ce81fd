// y = x·Wᵀ (+ b) with W stored [out, in] like PyTorch's nn.Linear and GGUF's matrices
// (GGUF lists the dims innermost first: [in, out]). The weight is "<name>.weight", the
// optional bias "<name>.bias".
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
    Tensor operator()(const Tensor& x) const;  // [..., in] -> [..., out]
};

}  // namespace forge::nn
