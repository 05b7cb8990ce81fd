#include "nn/rms_norm.h"

#include "core/autograd/ops/norm.h"

namespace forge::nn {

RmsNorm RmsNorm::make(ParameterSet& params, const std::string& name, std::int64_t dim, float eps, bool learnable) {
    RmsNorm norm;
    norm.eps = eps;
    if (learnable) norm.weight = params.add(name + ".weight", Shape{dim}, Init::ones());
    return norm;
}

Tensor RmsNorm::operator()(const Tensor& x) const { return ag::rmsnorm(x, weight, eps); }

}  // namespace forge::nn
