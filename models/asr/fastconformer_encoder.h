// The FastConformer encoder of a Parakeet model, on nn/ modules (so it runs with or without
// gradients), with NeMo's tensor names:
//
//   encoder.pre_encode.*     dw_striding 8x subsampling (nn/conv_subsampling.h)
//   · sqrt(d_model)          when xscaling
//   encoder.layers.N.*       Conformer blocks (nn/conformer_layer.h), all sharing the relative
//                            position encodings of the subsampled length
#pragma once

#include "core/tensor.h"
#include "models/asr/parakeet_config.h"
#include "nn/conformer_layer.h"
#include "nn/conv_subsampling.h"
#include "nn/parameter_set.h"

#include <vector>

namespace forge::asr {

struct FastConformerEncoder {
    EncoderConfig config;
    nn::ConvSubsampling pre_encode;
    std::vector<nn::ConformerLayer> layers;

    static FastConformerEncoder make(nn::ParameterSet& params, const EncoderConfig& config);
    Tensor operator()(const Tensor& features) const;  // [B, T, feat_in] -> [B, T', d_model]
};

}  // namespace forge::asr
