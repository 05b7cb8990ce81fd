#include "nn/linear.h"

#include "core/autograd/ops/matmul.h"

namespace forge::nn {

Linear Linear::make(ParameterSet& params, const std::string& name, std::int64_t in, std::int64_t out,
                    const Init& init, bool with_bias) {
    if (with_bias) return make(params, name, in, out, init, Init::zeros());
    return {params.add(name + ".weight", Shape{out, in}, init), Tensor{}};
}

Linear Linear::make(ParameterSet& params, const std::string& name, std::int64_t in, std::int64_t out,
                    const Init& init, const Init& bias_init) {
    Linear layer;
    layer.weight = params.add(name + ".weight", Shape{out, in}, init);
    layer.bias = params.add(name + ".bias", Shape{out}, bias_init);
    return layer;
}

Tensor Linear::operator()(const Tensor& x) const { return ag::linear(x, weight, bias); }

}  // namespace forge::nn
