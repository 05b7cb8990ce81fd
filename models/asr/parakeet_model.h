// A Parakeet speech model (CTC, RNN-T, TDT or a hybrid) from a GGUF file in the layout of
// mudler/parakeet.cpp's converter: the configuration (parakeet_config.h), the log-mel front end
// with the file's filterbank, the FastConformer encoder and the heads, every tensor under its
// NeMo name and checked for presence and shape.
//
// The CTC head is a 1x1 convolution d_model -> V+1: "decoder.decoder_layers.0" in CTC models,
// "ctc_decoder.decoder_layers.0" beside the transducer of a hybrid.
#pragma once

#include "models/asr/fastconformer_encoder.h"
#include "models/asr/log_mel.h"
#include "models/asr/parakeet_config.h"
#include "models/asr/transducer.h"
#include "nn/conv1d.h"
#include "nn/parameter_set.h"

#include <filesystem>
#include <optional>
#include <string>

namespace forge::asr {

struct CtcHead {
    nn::Conv1d conv;  // [V+1, d_model, 1], bias [V+1]

    static CtcHead make(nn::ParameterSet& params, const std::string& prefix, std::int64_t d_model, std::int64_t classes);
    Tensor operator()(const Tensor& encoded) const;  // [.., d_model] -> logits [.., V+1]
};

struct ParakeetModel {
    ParakeetConfig config;
    nn::ParameterSet params;
    FastConformerEncoder encoder;
    std::optional<CtcHead> ctc;
    std::optional<PredictionNetwork> prediction;
    std::optional<Joint> joint;
    std::optional<LogMel> log_mel;  // set by load()

    // The modules of `config` with fresh parameters (initialised from `seed`).
    static ParakeetModel make(const ParakeetConfig& config, std::uint64_t seed = 0,
                              const std::string& ctc_prefix = "decoder.decoder_layers.0");
    // Everything from a GGUF file; errors name the file and the key or tensor.
    static ParakeetModel load(const std::filesystem::path& path);

    Tensor encode(const Tensor& features) const;  // [T, feat_in] -> [T', d_model] (no gradients)
};

}  // namespace forge::asr
