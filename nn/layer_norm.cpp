#include "nn/layer_norm.h"

#include "core/autograd/ops/norm.h"

namespace forge::nn {

LayerNorm LayerNorm::make(ParameterSet& params, const std::string& name, std::int64_t dim, float eps) {
    LayerNorm norm;
    norm.weight = params.add(name + ".weight", Shape{dim}, Init::ones());
    norm.bias = params.add(name + ".bias", Shape{dim}, Init::zeros());
    norm.eps = eps;
    return norm;
}

Tensor LayerNorm::operator()(const Tensor& x) const { return ag::layernorm(x, weight, bias, eps); }

}  // namespace forge::nn
