#include "nn/conv2d.h"

#include "core/error.h"

namespace forge::nn {

Conv2d Conv2d::make(ParameterSet& params, const std::string& name, std::int64_t in, std::int64_t out,
                    std::int64_t kernel, const Conv2dOptions& options, bool with_bias) {
    check(options.groups >= 1 && in % options.groups == 0 && out % options.groups == 0,
          "conv2d '{}': {} input and {} output channels do not split into {} groups", name, in, out, options.groups);
    const Init init = Init::fan_in_uniform(in / options.groups * kernel * kernel);
    Conv2d conv;
    conv.options = options;
    conv.weight = params.add(name + ".weight", Shape{out, in / options.groups, kernel, kernel}, init);
    if (with_bias) conv.bias = params.add(name + ".bias", Shape{out}, init);
    return conv;
}

Tensor Conv2d::operator()(const Tensor& x) const { return ag::conv2d(x, weight, bias, options); }

}  // namespace forge::nn
