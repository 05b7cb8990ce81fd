#include "models/asr/parakeet_config.h"

#include "core/error.h"
#include "core/gguf/metadata.h"
#include "models/asr/gguf_keys.h"
#include "models/asr/vocabulary.h"

#include <cmath>

namespace forge::asr {
namespace {

constexpr std::int64_t kMaxDim = 1 << 16;

EncoderConfig read_encoder(const gguf::Metadata& keys) {
    EncoderConfig e;
    e.feat_in = keys.integer(keys::kEncoderFeatIn, {8, 1024});
    e.d_model = keys.integer(keys::kEncoderDModel, {2, kMaxDim});
    e.n_layers = keys.integer(keys::kEncoderLayers, {1, 1024});
    e.n_heads = keys.integer(keys::kEncoderHeads, {1, 1024});
    e.ff_dim = keys.integer(keys::kEncoderFfDim, {1, kMaxDim});
    e.conv_kernel = keys.integer(keys::kEncoderConvKernel, {1, 255});
    e.subsampling_factor = keys.integer(keys::kEncoderSubsamplingFactor, {1, 64});
    e.subsampling_channels = keys.integer(keys::kEncoderSubsamplingChannels, {1, kMaxDim});
    e.xscaling = keys.boolean_or(keys::kEncoderXscaling, false);
    e.pos_emb_max_len = keys.integer_or(keys::kEncoderPosEmbMaxLen, 5000, {1, 1 << 24});
    e.use_bias = keys.boolean_or(keys::kEncoderUseBias, true);
    check_format(e.d_model % e.n_heads == 0 && e.d_model % 2 == 0,
                       "{}: {} = {} must be even and divisible by {} = {}", keys.source(),
                       keys::kEncoderDModel, e.d_model, keys::kEncoderHeads, e.n_heads);
    check_format(e.conv_kernel % 2 == 1, "{}: {} = {} must be odd", keys.source(),
                       keys::kEncoderConvKernel, e.conv_kernel);
    check_format(e.subsampling_factor == 8, "{}: {} = {}: only dw_striding 8x "
                       "subsampling is supported", keys.source(), keys::kEncoderSubsamplingFactor, e.subsampling_factor);
    const std::string norm = keys.string_or(keys::kEncoderConvNormType, "batch_norm");
    check_format(norm == "batch_norm", "{}: {} = '{}': only batch_norm is supported",
                       keys.source(), keys::kEncoderConvNormType, norm);
    return e;
}

PreprocessorConfig read_preprocessor(const gguf::Metadata& keys) {
    PreprocessorConfig pre;
    pre.sample_rate = keys.integer(keys::kPreSampleRate, {1000, 192000});
    pre.n_mels = keys.integer(keys::kPreMels, {8, 1024});
    pre.n_fft = keys.integer(keys::kPreFft, {16, 1 << 16});
    pre.win_length = keys.integer(keys::kPreWinLength, {2, pre.n_fft});
    pre.hop_length = keys.integer(keys::kPreHopLength, {1, pre.n_fft});
    pre.preemph = static_cast<float>(keys.number_or(keys::kPrePreemph, 0.97f, {0.0, 1.0}));
    pre.mag_power = static_cast<float>(keys.number_or(keys::kPreMagPower, 2.0f, {0.5, 4.0}));
    pre.log_zero_guard = static_cast<float>(keys.number_or(keys::kPreLogZeroGuard, 5.9604645e-08f, {0.0, 1.0}));
    check_format(pre.n_fft % 2 == 0, "{}: {} = {} must be even", keys.source(), keys::kPreFft, pre.n_fft);
    const std::string normalize = keys.string_or(keys::kPreNormalize, "per_feature");
    check_format(normalize == "per_feature", "{}: {} = '{}': only per_feature is "
                       "supported", keys.source(), keys::kPreNormalize, normalize);
    return pre;
}

TransducerConfig read_transducer(const gguf::Metadata& keys, bool tdt) {
    TransducerConfig t;
    t.pred_hidden = keys.integer(keys::kDecoderPredHidden, {1, kMaxDim});
    t.pred_rnn_layers = keys.integer(keys::kDecoderPredRnnLayers, {1, 16});
    t.joint_hidden = keys.integer(keys::kJointHidden, {1, kMaxDim});
    const std::string activation = keys.string_or(keys::kJointActivation, "relu");
    check_format(activation == "relu", "{}: {} = '{}': only relu is supported",
                       keys.source(), keys::kJointActivation, activation);
    if (tdt) {
        const gguf::Array& durations = keys.array(keys::kTdtDurations);
        check_format(!durations.items.empty(), "{}: {} is empty", keys.source(), keys::kTdtDurations);
        for (const gguf::Value& d : durations.items) {
            const auto v = d.as_int();
            check_format(v.has_value() && *v >= 0 && *v <= 1024,
                               "{}: {} holds {}, not a duration in [0, 1024]", keys.source(), keys::kTdtDurations,
                               d.to_string());
            t.durations.push_back(*v);
        }
    }
    return t;
}

}  // namespace

ParakeetArch parse_arch(const std::string& name) {
    if (name == "ctc") return ParakeetArch::Ctc;
    if (name == "rnnt") return ParakeetArch::Rnnt;
    if (name == "tdt") return ParakeetArch::Tdt;
    if (name == "hybrid_rnnt_ctc") return ParakeetArch::HybridRnntCtc;
    if (name == "hybrid_tdt_ctc") return ParakeetArch::HybridTdtCtc;
    fail_format("unknown {} '{}' (expected ctc, rnnt, tdt, hybrid_rnnt_ctc or "
                "hybrid_tdt_ctc)", keys::kArch, name);
}

std::string arch_name(ParakeetArch arch) {
    switch (arch) {
        case ParakeetArch::Ctc: return "ctc";
        case ParakeetArch::Rnnt: return "rnnt";
        case ParakeetArch::Tdt: return "tdt";
        case ParakeetArch::HybridRnntCtc: return "hybrid_rnnt_ctc";
        case ParakeetArch::HybridTdtCtc: return "hybrid_tdt_ctc";
    }
    return "?";
}

bool has_ctc_head(ParakeetArch arch) {
    return arch == ParakeetArch::Ctc || arch == ParakeetArch::HybridRnntCtc || arch == ParakeetArch::HybridTdtCtc;
}
bool has_transducer(ParakeetArch arch) { return arch != ParakeetArch::Ctc; }
bool has_durations(ParakeetArch arch) { return arch == ParakeetArch::Tdt || arch == ParakeetArch::HybridTdtCtc; }

double ParakeetConfig::frame_seconds() const {
    return static_cast<double>(preprocessor.hop_length * encoder.subsampling_factor) /
           static_cast<double>(preprocessor.sample_rate);
}

ParakeetConfig read_parakeet_config(const gguf::GgufFile& file) {
    const gguf::Metadata keys(file);
    const std::string architecture = keys.string(keys::kGeneralArchitecture);
    check_format(architecture == keys::kArchitectureName, "{}: {} is '{}', not a Parakeet model ('{}')",
                       file.source(), keys::kGeneralArchitecture, architecture, keys::kArchitectureName);
    ParakeetConfig c;
    try {
        c.arch = parse_arch(keys.string(keys::kArch));
    } catch (const FormatError& e) {
        fail_format("{}: {}", file.source(), e.what());
    }
    c.encoder = read_encoder(keys);
    c.preprocessor = read_preprocessor(keys);
    check_format(c.preprocessor.n_mels == c.encoder.feat_in,
                       "{}: {} = {} differs from {} = {}", file.source(), keys::kPreMels,
                       c.preprocessor.n_mels, keys::kEncoderFeatIn, c.encoder.feat_in);
    // The tokenizer has one reader, Vocabulary::from_gguf (pieces, vocab_size, blank_id).
    const Vocabulary vocabulary = Vocabulary::from_gguf(file);
    c.vocab_size = vocabulary.size();
    c.blank_id = vocabulary.blank_id();
    c.pieces = vocabulary.pieces();
    if (has_transducer(c.arch)) c.transducer = read_transducer(keys, has_durations(c.arch));
    return c;
}

}  // namespace forge::asr
