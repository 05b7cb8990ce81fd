#include "models/asr/parakeet_writer.h"

#include "core/error.h"
#include "core/gguf/gguf_writer.h"
#include "models/asr/gguf_keys.h"
#include "models/asr/vocabulary.h"

#include <cstdint>

namespace forge::asr {
namespace {

gguf::Value u32(std::int64_t v) { return static_cast<std::uint32_t>(v); }
std::string key(std::string_view k) { return std::string(k); }

void set_encoder(gguf::GgufWriter& w, const EncoderConfig& e) {
    w.set(key(keys::kEncoderFeatIn), u32(e.feat_in));
    w.set(key(keys::kEncoderDModel), u32(e.d_model));
    w.set(key(keys::kEncoderLayers), u32(e.n_layers));
    w.set(key(keys::kEncoderHeads), u32(e.n_heads));
    w.set(key(keys::kEncoderFfDim), u32(e.ff_dim));
    w.set(key(keys::kEncoderConvKernel), u32(e.conv_kernel));
    w.set(key(keys::kEncoderConvNormType), "batch_norm");
    w.set(key(keys::kEncoderSubsamplingFactor), u32(e.subsampling_factor));
    w.set(key(keys::kEncoderSubsamplingChannels), u32(e.subsampling_channels));
    w.set(key(keys::kEncoderXscaling), e.xscaling);
    w.set(key(keys::kEncoderPosEmbMaxLen), u32(e.pos_emb_max_len));
    w.set(key(keys::kEncoderUseBias), e.use_bias);
}

void set_preprocessor(gguf::GgufWriter& w, const PreprocessorConfig& pre) {
    w.set(key(keys::kPreSampleRate), u32(pre.sample_rate));
    w.set(key(keys::kPreMels), u32(pre.n_mels));
    w.set(key(keys::kPreFft), u32(pre.n_fft));
    w.set(key(keys::kPreWinLength), u32(pre.win_length));
    w.set(key(keys::kPreHopLength), u32(pre.hop_length));
    w.set(key(keys::kPrePreemph), pre.preemph);
    w.set(key(keys::kPreMagPower), pre.mag_power);
    w.set(key(keys::kPreNormalize), "per_feature");
    w.set(key(keys::kPreLogZeroGuard), pre.log_zero_guard);
}

void set_transducer(gguf::GgufWriter& w, const ParakeetConfig& c) {
    w.set(key(keys::kDecoderPredHidden), u32(c.transducer.pred_hidden));
    w.set(key(keys::kDecoderPredRnnLayers), u32(c.transducer.pred_rnn_layers));
    w.set(key(keys::kJointHidden), u32(c.transducer.joint_hidden));
    w.set(key(keys::kJointActivation), "relu");
    if (!has_durations(c.arch)) return;
    gguf::Array durations{gguf::ValueType::I32, {}};
    for (const std::int64_t d : c.transducer.durations) durations.items.emplace_back(static_cast<std::int32_t>(d));
    w.set(key(keys::kTdtDurations), std::move(durations));
}

}  // namespace

void write_parakeet_gguf(const std::filesystem::path& path, const ParakeetModel& model, const Tensor& filterbank,
                         std::span<const float> window, const std::string& name) {
    const ParakeetConfig& c = model.config;
    const std::int64_t bins = c.preprocessor.n_fft / 2 + 1;
    check(filterbank.shape() == Shape{c.preprocessor.n_mels, bins}, "{}: the filterbank must be [{}, {}], got {}",
          path.string(), c.preprocessor.n_mels, bins, filterbank.shape().to_string());
    check(static_cast<std::int64_t>(window.size()) == c.preprocessor.win_length, "{}: the window has {} points, not {}",
          path.string(), window.size(), c.preprocessor.win_length);
    check(static_cast<std::int64_t>(c.pieces.size()) == c.vocab_size, "{}: {} pieces for a vocabulary of {}",
          path.string(), c.pieces.size(), c.vocab_size);
    gguf::GgufWriter w;
    w.set(key(keys::kGeneralArchitecture), key(keys::kArchitectureName));
    w.set("general.name", name);
    w.set(key(keys::kArch), arch_name(c.arch));
    set_encoder(w, c.encoder);
    set_preprocessor(w, c.preprocessor);
    Vocabulary(c.pieces).add_to_gguf(w);
    if (has_transducer(c.arch)) set_transducer(w, c);
    nn::add_f32_to_gguf(w, "preprocessor.featurizer.fb", filterbank.reshape(Shape{1, c.preprocessor.n_mels, bins}));
    nn::add_f32_to_gguf(w, "preprocessor.featurizer.window",
                        Tensor::from(window, Shape{static_cast<std::int64_t>(window.size())}));
    model.params.add_to_gguf(w);
    w.write(path.string());
}

}  // namespace forge::asr
