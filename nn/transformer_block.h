// A pre-norm transformer block, llama.cpp's layout (GGUF names "blk.N.*"):
//   h   = x + attention(attn_norm(x))
//   out = h + mlp(ffn_norm(h))
#pragma once

#include "core/tensor.h"
#include "nn/attention.h"
#include "nn/mlp.h"
#include "nn/parameter_set.h"
#include "nn/rms_norm.h"

#include <string>

namespace forge::nn {

struct TransformerBlockConfig {
    AttentionConfig attention;
    MlpConfig mlp;
    float norm_eps = 1e-6f;
    bool learnable_norms = true;
};

// in_proj: q, k, v, gate, up; out_proj: attn_output and ffn_down (the residual branches' ends).
struct TransformerBlockInit {
    Init in_proj;
    Init out_proj;
};

struct TransformerBlock {
    RmsNorm attn_norm;
    Attention attention;
    RmsNorm ffn_norm;
    Mlp mlp;

    static TransformerBlock make(ParameterSet& params, const std::string& prefix, const TransformerBlockConfig& config,
                                 const TransformerBlockInit& init);
    Tensor operator()(const Tensor& x) const;  // [B, T, dim] -> [B, T, dim]
};

}  // namespace forge::nn
