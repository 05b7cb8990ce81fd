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

#include <span>
#include <vector>

namespace forge::asr {

struct FastConformerEncoder {
    EncoderConfig config;
    nn::ConvSubsampling pre_encode;
    std::vector<nn::ConformerLayer> layers;

    static FastConformerEncoder make(nn::ParameterSet& params, const EncoderConfig& config);
    // [B, T, feat_in] -> [B, T', d_model]. A padded batch gives each utterance's real mel frames
    // in `lengths` (B of them); its encoder frames are then subsampled_length(lengths[b]), and
    // they equal the utterance encoded alone.
    Tensor operator()(const Tensor& features, std::span<const std::int64_t> lengths = {}) const;
};

}  // namespace forge::asr
