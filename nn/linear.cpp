#include "nn/linear.h"

#include "core/autograd/ops/matmul.h"

namespace forge::nn {

Linear Linear::make(ParameterSet& params, const std::string& name, std::int64_t in, std::int64_t out,
                    const Init& init, bool with_bias) {
    Linear layer;
    layer.weight = params.add(name + ".weight", Shape{out, in}, init);
    if (with_bias) layer.bias = params.add(name + ".bias", Shape{out}, Init::zeros());
    return layer;
}

Tensor Linear::operator()(const Tensor& x) const { return ag::linear(x, weight, bias); }

}  // namespace forge::nn
