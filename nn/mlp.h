// The feed-forward half of a transformer block, with GGUF's tensor names under a prefix:
//   SwiGLU:        ffn_down( silu(ffn_gate(x)) * ffn_up(x) )   (llama, qwen)
//   ReluSquared:   ffn_down( relu(ffn_up(x))² )                (nanochat, modded-nanogpt)
#pragma once

#include "core/tensor.h"
#include "nn/linear.h"
#include "nn/parameter_set.h"

#include <string>

namespace forge::nn {

enum class MlpActivation { SwiGLU, ReluSquared };

struct MlpConfig {
    std::int64_t dim = 0;
    std::int64_t hidden = 0;
    MlpActivation activation = MlpActivation::SwiGLU;
};

struct Mlp {
    MlpConfig config;
    Linear gate;  // SwiGLU only
    Linear up;
    Linear down;

    // `in_init` for gate and up, `out_init` for down (often zeros, so a new block starts as identity).
    static Mlp make(ParameterSet& params, const std::string& prefix, const MlpConfig& config, const Init& in_init,
                    const Init& out_init);
    Tensor operator()(const Tensor& x) const;
};

}  // namespace forge::nn
