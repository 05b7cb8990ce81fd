#include "models/asr/parakeet_writer.h"

#include "core/error.h"
#include "core/gguf/gguf_writer.h"

#include <cstdint>

namespace forge::asr {
namespace {

gguf::Value u32(std::int64_t v) { return static_cast<std::uint32_t>(v); }

void set_encoder(gguf::GgufWriter& w, const EncoderConfig& e) {
    const std::string p = "parakeet.encoder.";
    w.set(p + "feat_in", u32(e.feat_in));
    w.set(p + "d_model", u32(e.d_model));
    w.set(p + "n_layers", u32(e.n_layers));
    w.set(p + "n_heads", u32(e.n_heads));
    w.set(p + "ff_dim", u32(e.ff_dim));
    w.set(p + "conv_kernel", u32(e.conv_kernel));
    w.set(p + "conv_norm_type", "batch_norm");
    w.set(p + "subsampling_factor", u32(e.subsampling_factor));
    w.set(p + "subsampling_conv_channels", u32(e.subsampling_channels));
    w.set(p + "xscaling", e.xscaling);
    w.set(p + "pos_emb_max_len", u32(e.pos_emb_max_len));
    w.set(p + "use_bias", e.use_bias);
}

void set_preprocessor(gguf::GgufWriter& w, const PreprocessorConfig& pre) {
    const std::string p = "parakeet.preprocessor.";
    w.set(p + "sample_rate", u32(pre.sample_rate));
    w.set(p + "n_mels", u32(pre.n_mels));
    w.set(p + "n_fft", u32(pre.n_fft));
    w.set(p + "win_length", u32(pre.win_length));
    w.set(p + "hop_length", u32(pre.hop_length));
    w.set(p + "preemph", pre.preemph);
    w.set(p + "mag_power", pre.mag_power);
    w.set(p + "normalize", "per_feature");
    w.set(p + "log_zero_guard", pre.log_zero_guard);
}

void set_transducer(gguf::GgufWriter& w, const ParakeetConfig& c) {
    w.set("parakeet.decoder.pred_hidden", u32(c.transducer.pred_hidden));
    w.set("parakeet.decoder.pred_rnn_layers", u32(c.transducer.pred_rnn_layers));
    w.set("parakeet.joint.joint_hidden", u32(c.transducer.joint_hidden));
    w.set("parakeet.joint.activation", "relu");
    if (!has_durations(c.arch)) return;
    gguf::Array durations{gguf::ValueType::I32, {}};
    for (const std::int64_t d : c.transducer.durations) durations.items.emplace_back(static_cast<std::int32_t>(d));
    w.set("parakeet.tdt.durations", std::move(durations));
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
    w.set("general.architecture", "parakeet");
    w.set("general.name", name);
    w.set("parakeet.arch", arch_name(c.arch));
    set_encoder(w, c.encoder);
    set_preprocessor(w, c.preprocessor);
    w.set("parakeet.vocab_size", u32(c.vocab_size));
    w.set("parakeet.blank_id", u32(c.blank_id));
    gguf::Array pieces{gguf::ValueType::String, {}};
    for (const std::string& piece : c.pieces) pieces.items.emplace_back(piece);
    w.set("parakeet.tokenizer.pieces", std::move(pieces));
    if (has_transducer(c.arch)) set_transducer(w, c);
    nn::add_f32_to_gguf(w, "preprocessor.featurizer.fb", filterbank.reshape(Shape{1, c.preprocessor.n_mels, bins}));
    nn::add_f32_to_gguf(w, "preprocessor.featurizer.window",
                        Tensor::from(window, Shape{static_cast<std::int64_t>(window.size())}));
    model.params.add_to_gguf(w);
    w.write(path.string());
}

}  // namespace forge::asr
