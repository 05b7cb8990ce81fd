#include "nn/conformer_layer.h"

#include "core/autograd/ops/pointwise.h"

namespace forge::nn {

ConformerFeedForward ConformerFeedForward::make(ParameterSet& params, const std::string& prefix, std::int64_t dim,
                                                std::int64_t hidden, bool bias) {
    return {Linear::make(params, prefix + "linear1", dim, hidden, Init::fan_in_uniform(dim), bias),
            Linear::make(params, prefix + "linear2", hidden, dim, Init::fan_in_uniform(hidden), bias)};
}

Tensor ConformerFeedForward::operator()(const Tensor& x) const { return linear2(ag::silu(linear1(x))); }

ConformerLayer ConformerLayer::make(ParameterSet& params, const std::string& prefix, const ConformerLayerConfig& config) {
    const std::int64_t d = config.dim;
    ConformerLayer layer;
    layer.norm_ff1 = LayerNorm::make(params, prefix + "norm_feed_forward1", d);
    layer.ff1 = ConformerFeedForward::make(params, prefix + "feed_forward1.", d, config.ff_dim, config.bias);
    layer.norm_attn = LayerNorm::make(params, prefix + "norm_self_att", d);
    layer.attn = RelPositionAttention::make(params, prefix + "self_attn.", {d, config.n_head, config.bias});
    layer.norm_conv = LayerNorm::make(params, prefix + "norm_conv", d);
    layer.conv = ConformerConvolution::make(params, prefix + "conv.", {d, config.conv_kernel, config.bias});
    layer.norm_ff2 = LayerNorm::make(params, prefix + "norm_feed_forward2", d);
    layer.ff2 = ConformerFeedForward::make(params, prefix + "feed_forward2.", d, config.ff_dim, config.bias);
    layer.norm_out = LayerNorm::make(params, prefix + "norm_out", d);
    return layer;
}

Tensor ConformerLayer::operator()(const Tensor& x, const Tensor& positions, const Tensor& key_mask,
                                  const Tensor& time_mask) const {
    Tensor h = ag::add(x, ag::mul(ff1(norm_ff1(x)), 0.5f));
    h = ag::add(h, attn(norm_attn(h), positions, key_mask));
    h = ag::add(h, conv(norm_conv(h), time_mask));
    h = ag::add(h, ag::mul(ff2(norm_ff2(h)), 0.5f));
    return norm_out(h);
}

}  // namespace forge::nn
