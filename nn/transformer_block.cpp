#include "nn/transformer_block.h"

#include "core/autograd/ops/pointwise.h"

namespace forge::nn {

TransformerBlock TransformerBlock::make(ParameterSet& params, const std::string& prefix,
                                        const TransformerBlockConfig& config, const TransformerBlockInit& init) {
    const std::int64_t dim = config.attention.dim;
    TransformerBlock block;
    block.attn_norm = RmsNorm::make(params, prefix + "attn_norm", dim, config.norm_eps, config.learnable_norms);
    block.attention = Attention::make(params, prefix, config.attention, init.in_proj, init.out_proj);
    block.ffn_norm = RmsNorm::make(params, prefix + "ffn_norm", dim, config.norm_eps, config.learnable_norms);
    block.mlp = Mlp::make(params, prefix, config.mlp, init.in_proj, init.out_proj);
    return block;
}

Tensor TransformerBlock::operator()(const Tensor& x) const {
    const Tensor h = ag::add(x, attention(attn_norm(x)));
    return ag::add(h, mlp(ffn_norm(h)));
}

}  // namespace forge::nn
