// One FastConformer block (NeMo's ConformerLayer), names under "encoder.layers.N.":
//
//   x += ½ · feed_forward1(norm_feed_forward1(x))     macaron half
//   x += self_attn(norm_self_att(x), positions)       relative-position attention
//   x += conv(norm_conv(x))                           convolution module
//   x += ½ · feed_forward2(norm_feed_forward2(x))     macaron half
//   x  = norm_out(x)
//
// A feed-forward is linear2(SiLU(linear1(x))), d -> ff -> d; the norms are LayerNorms.
#pragma once

#include "core/tensor.h"
#include "nn/conformer_convolution.h"
#include "nn/layer_norm.h"
#include "nn/linear.h"
#include "nn/parameter_set.h"
#include "nn/rel_position_attention.h"

#include <string>

namespace forge::nn {

struct ConformerLayerConfig {
    std::int64_t dim = 0;
    std::int64_t n_head = 0;
    std::int64_t ff_dim = 0;
    std::int64_t conv_kernel = 9;
    bool bias = true;  // NeMo's use_bias: the linear and convolution layers (not the norms)
};

struct ConformerFeedForward {
    Linear linear1, linear2;

    static ConformerFeedForward make(ParameterSet& params, const std::string& prefix, std::int64_t dim,
                                     std::int64_t hidden, bool bias);
    Tensor operator()(const Tensor& x) const;
};

struct ConformerLayer {
    LayerNorm norm_ff1, norm_attn, norm_conv, norm_ff2, norm_out;
    ConformerFeedForward ff1, ff2;
    RelPositionAttention attn;
    ConformerConvolution conv;

    static ConformerLayer make(ParameterSet& params, const std::string& prefix, const ConformerLayerConfig& config);
    // x [B, T, dim], positions [2T-1, dim] -> [B, T, dim]. A padded batch passes its masks
    // (padded_key_mask, padded_time_mask); real frames then never see padding.
    Tensor operator()(const Tensor& x, const Tensor& positions, const Tensor& key_mask = {},
                      const Tensor& time_mask = {}) const;
};

}  // namespace forge::nn
