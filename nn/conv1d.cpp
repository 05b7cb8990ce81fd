#include "nn/conv1d.h"

#include "core/autograd/ops/matmul.h"
#include "core/autograd/ops/shape.h"
#include "core/error.h"

namespace forge::nn {

Conv1d Conv1d::make(ParameterSet& params, const std::string& name, std::int64_t in, std::int64_t out,
                    std::int64_t kernel, const Conv1dOptions& options, bool with_bias) {
    check(options.groups >= 1 && in % options.groups == 0 && out % options.groups == 0,
          "conv1d '{}': {} input and {} output channels do not split into {} groups", name, in, out, options.groups);
    const Init init = Init::fan_in_uniform(in / options.groups * kernel);
    Conv1d conv;
    conv.options = options;
    conv.weight = params.add(name + ".weight", Shape{out, in / options.groups, kernel}, init);
    if (with_bias) conv.bias = params.add(name + ".bias", Shape{out}, init);
    return conv;
}

Tensor Conv1d::operator()(const Tensor& x) const { return ag::conv1d(x, weight, bias, options); }

Tensor Conv1d::pointwise(const Tensor& x) const {
    check(weight.size(2) == 1 && options.groups == 1, "conv1d: pointwise() needs a 1x1 convolution, the kernel is {}",
          weight.shape().to_string());
    return ag::linear(x, ag::reshape(weight, Shape{weight.size(0), weight.size(1)}), bias);
}

}  // namespace forge::nn
