// The Conformer convolution module (NeMo's ConformerConvolution), names under a prefix
// ("encoder.layers.N.conv."):
//
//   pointwise_conv1  1x1, d -> 2d;  GLU (first half · sigmoid(second half))
//   depthwise_conv   k taps (odd), one per channel, centred ('same' padding)
//   batch_norm       running statistics (nn/batch_norm.h)
//   SiLU;  pointwise_conv2  1x1, d -> d
//
// The 1x1 convolutions keep NeMo's [out, in, 1] weights and run as matrix products over the
// feature axis of [B, T, d]. The convolutions carry biases when `bias` (NeMo's use_bias).
#pragma once

#include "core/tensor.h"
#include "nn/batch_norm.h"
#include "nn/conv1d.h"
#include "nn/parameter_set.h"

#include <string>

namespace forge::nn {

struct ConformerConvolutionConfig {
    std::int64_t dim = 0;
    std::int64_t kernel_size = 9;
    bool bias = true;
};

struct ConformerConvolution {
    ConformerConvolutionConfig config;
    Conv1d pointwise1;  // [2d, d, 1]
    Conv1d depthwise;   // [d, 1, k], d groups
    BatchNorm batch_norm;
    Conv1d pointwise2;  // [d, d, 1]

    static ConformerConvolution make(ParameterSet& params, const std::string& prefix,
                                     const ConformerConvolutionConfig& config);
    // [B, T, d] -> [B, T, d]; time_mask [B, T, 1] (padded_time_mask), when defined, zeroes the
    // padded frames before the depthwise convolution so they do not leak into real ones.
    Tensor operator()(const Tensor& x, const Tensor& time_mask = {}) const;
};

}  // namespace forge::nn
