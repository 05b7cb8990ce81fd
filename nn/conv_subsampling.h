// FastConformer's "dw_striding" subsampling (NeMo's ConvSubsampling), 8x along time and
// frequency, with NeMo's tensor names under a prefix ("encoder.pre_encode."):
//
//   x [B, T, F] as one-channel images [B, 1, T, F]
//   conv.0   3x3 / 2, 1 -> C channels, ReLU
//   conv.2   3x3 / 2 depthwise, conv.3 1x1 pointwise, ReLU
//   conv.5   3x3 / 2 depthwise, conv.6 1x1 pointwise, ReLU     (every conv padded by 1)
//   [B, C, T/8, F/8] -> [B, T/8, C·F/8] (channel-major features) -> out: Linear to d_model
//
// Each stage maps a length L to floor((L - 1) / 2) + 1.
#pragma once

#include "core/tensor.h"
#include "nn/conv2d.h"
#include "nn/linear.h"
#include "nn/parameter_set.h"

#include <string>

namespace forge::nn {

struct ConvSubsamplingConfig {
    std::int64_t feat_in = 0;   // mel bins F
    std::int64_t channels = 0;  // C
    std::int64_t d_model = 0;
};

struct ConvSubsampling {
    ConvSubsamplingConfig config;
    Conv2d conv0;                   // [C, 1, 3, 3]
    Conv2d depthwise1, pointwise1;  // [C, 1, 3, 3] (C groups), [C, C, 1, 1]
    Conv2d depthwise2, pointwise2;
    Linear out;                     // [d_model, C·F/8]

    static ConvSubsampling make(ParameterSet& params, const std::string& prefix, const ConvSubsamplingConfig& config);
    Tensor operator()(const Tensor& x) const;  // [B, T, F] -> [B, subsampled_length(T), d_model]

    static std::int64_t subsampled_length(std::int64_t length);  // three stride-2 stages
};

}  // namespace forge::nn
