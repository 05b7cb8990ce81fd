#include "nn/mlp.h"

#include "core/autograd/ops/pointwise.h"

namespace forge::nn {

Mlp Mlp::make(ParameterSet& params, const std::string& prefix, const MlpConfig& config, const Init& in_init,
              const Init& out_init) {
    Mlp mlp;
    mlp.config = config;
    if (config.activation == MlpActivation::SwiGLU) {
        mlp.gate = Linear::make(params, prefix + "ffn_gate", config.dim, config.hidden, in_init);
    }
    mlp.up = Linear::make(params, prefix + "ffn_up", config.dim, config.hidden, in_init);
    mlp.down = Linear::make(params, prefix + "ffn_down", config.hidden, config.dim, out_init);
    return mlp;
}

Tensor Mlp::operator()(const Tensor& x) const {
    switch (config.activation) {
        case MlpActivation::SwiGLU: return down(ag::mul(ag::silu(gate(x)), up(x)));
        case MlpActivation::ReluSquared: {
            const Tensor h = ag::relu(up(x));
            return down(ag::mul(h, h));
        }
    }
    return {};
}

}  // namespace forge::nn
