#include "nn/batch_norm.h"

#include "core/autograd/ops/pointwise.h"
#include "core/autograd/ops/shape.h"

namespace forge::nn {

BatchNorm BatchNorm::make(ParameterSet& params, const std::string& name, std::int64_t channels, float eps) {
    BatchNorm norm;
    norm.weight = params.add(name + ".weight", Shape{channels}, Init::ones());
    norm.bias = params.add(name + ".bias", Shape{channels}, Init::zeros());
    norm.running_mean = params.add(name + ".running_mean", Shape{channels}, Init::zeros(), /*trainable=*/false);
    norm.running_var = params.add(name + ".running_var", Shape{channels}, Init::ones(), /*trainable=*/false);
    norm.eps = eps;
    return norm;
}

Tensor BatchNorm::operator()(const Tensor& x) const {
    // Per channel, one scale and one shift: [C] -> [C, 1] to broadcast along time.
    const Tensor scale = ag::mul(weight, ag::rsqrt(ag::add(running_var, eps)));
    const Tensor shift = ag::sub(bias, ag::mul(running_mean, scale));
    return ag::add(ag::mul(x, ag::unsqueeze(scale, 1)), ag::unsqueeze(shift, 1));
}

}  // namespace forge::nn
