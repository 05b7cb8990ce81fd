#include "models/asr/fastconformer_encoder.h"

#include "core/autograd/ops/pointwise.h"
#include "core/error.h"

#include <cmath>
#include <string>

namespace forge::asr {

FastConformerEncoder FastConformerEncoder::make(nn::ParameterSet& params, const EncoderConfig& config) {
    FastConformerEncoder e;
    e.config = config;
    e.pre_encode = nn::ConvSubsampling::make(params, "encoder.pre_encode.",
                                             {config.feat_in, config.subsampling_channels, config.d_model});
    const nn::ConformerLayerConfig layer{config.d_model, config.n_heads, config.ff_dim, config.conv_kernel,
                                         config.use_bias};
    for (std::int64_t i = 0; i < config.n_layers; ++i) {
        e.layers.push_back(nn::ConformerLayer::make(params, "encoder.layers." + std::to_string(i) + ".", layer));
    }
    return e;
}

Tensor FastConformerEncoder::operator()(const Tensor& features, std::span<const std::int64_t> lengths) const {
    check(lengths.empty() || static_cast<std::int64_t>(lengths.size()) == features.size(0),
          "encoder: {} lengths for a batch of {}", lengths.size(), features.size(0));
    Tensor x = pre_encode(features);
    if (config.xscaling) x = ag::mul(x, static_cast<float>(std::sqrt(static_cast<double>(config.d_model))));
    const Tensor positions = nn::relative_positions(x.size(1), config.d_model);
    Tensor key_mask, time_mask;
    if (!lengths.empty()) {
        std::vector<std::int64_t> frames;
        for (const std::int64_t length : lengths) frames.push_back(nn::ConvSubsampling::subsampled_length(length));
        key_mask = nn::padded_key_mask(frames, x.size(1));
        time_mask = nn::padded_time_mask(frames, x.size(1));
    }
    for (const nn::ConformerLayer& layer : layers) x = layer(x, positions, key_mask, time_mask);
    return x;
}

}  // namespace forge::asr
