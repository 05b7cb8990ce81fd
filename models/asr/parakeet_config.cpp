#include "models/asr/parakeet_config.h"

#include "core/error.h"

#include <cmath>

namespace forge::asr {
namespace {

template <typename... Args>
void check_format(bool condition, fmt::format_string<Args...> format, Args&&... args) {
    if (!condition) throw FormatError(fmt::format(format, std::forward<Args>(args)...));
}

// Typed access to the metadata of one file: every miss names the file and the key.
class Keys {
public:
    explicit Keys(const gguf::GgufFile& file) : file_(file) {}

    const gguf::Value& value(const std::string& key) const {
        const gguf::Value* v = file_.find(key);
        check_format(v != nullptr, "{}: missing metadata key '{}'", file_.source(), key);
        return *v;
    }
    bool has(const std::string& key) const { return file_.find(key) != nullptr; }

    std::int64_t integer(const std::string& key, std::int64_t min, std::int64_t max) const {
        const auto v = value(key).as_int();
        check_format(v.has_value(), "{}: metadata '{}' must be an integer, got {}", file_.source(), key,
                           value(key).to_string());
        check_format(*v >= min && *v <= max, "{}: metadata '{}' = {} is outside [{}, {}]", file_.source(), key, *v,
                           min, max);
        return *v;
    }
    std::int64_t integer_or(const std::string& key, std::int64_t fallback, std::int64_t min, std::int64_t max) const {
        return has(key) ? integer(key, min, max) : fallback;
    }
    float real(const std::string& key, double min, double max) const {
        const auto v = value(key).as_double();
        check_format(v.has_value() && std::isfinite(*v) && *v >= min && *v <= max,
                           "{}: metadata '{}' must be a number in [{}, {}], got {}", file_.source(), key, min, max,
                           value(key).to_string());
        return static_cast<float>(*v);
    }
    float real_or(const std::string& key, float fallback, double min, double max) const {
        return has(key) ? real(key, min, max) : fallback;
    }
    bool boolean_or(const std::string& key, bool fallback) const {
        if (!has(key)) return fallback;
        const bool* v = value(key).get_if<bool>();
        check_format(v != nullptr, "{}: metadata '{}' must be a bool, got {}", file_.source(), key,
                           value(key).to_string());
        return *v;
    }
    std::string string(const std::string& key) const {
        const std::string* v = value(key).string();
        check_format(v != nullptr, "{}: metadata '{}' must be a string, got {}", file_.source(), key,
                           value(key).to_string());
        return *v;
    }
    std::string string_or(const std::string& key, const std::string& fallback) const {
        return has(key) ? string(key) : fallback;
    }
    const gguf::Array& array(const std::string& key) const {
        const gguf::Array* v = value(key).array();
        check_format(v != nullptr, "{}: metadata '{}' must be an array, got {}", file_.source(), key,
                           value(key).to_string());
        return *v;
    }
    const std::string& source() const { return file_.source(); }

private:
    const gguf::GgufFile& file_;
};

constexpr std::int64_t kMaxDim = 1 << 16;

EncoderConfig read_encoder(const Keys& keys) {
    EncoderConfig e;
    const std::string p = "parakeet.encoder.";
    e.feat_in = keys.integer(p + "feat_in", 8, 1024);
    e.d_model = keys.integer(p + "d_model", 2, kMaxDim);
    e.n_layers = keys.integer(p + "n_layers", 1, 1024);
    e.n_heads = keys.integer(p + "n_heads", 1, 1024);
    e.ff_dim = keys.integer(p + "ff_dim", 1, kMaxDim);
    e.conv_kernel = keys.integer(p + "conv_kernel", 1, 255);
    e.subsampling_factor = keys.integer(p + "subsampling_factor", 1, 64);
    e.subsampling_channels = keys.integer(p + "subsampling_conv_channels", 1, kMaxDim);
    e.xscaling = keys.boolean_or(p + "xscaling", false);
    e.pos_emb_max_len = keys.integer_or(p + "pos_emb_max_len", 5000, 1, 1 << 24);
    e.use_bias = keys.boolean_or(p + "use_bias", true);
    check_format(e.d_model % e.n_heads == 0 && e.d_model % 2 == 0,
                       "{}: parakeet.encoder.d_model = {} must be even and divisible by n_heads = {}", keys.source(),
                       e.d_model, e.n_heads);
    check_format(e.conv_kernel % 2 == 1, "{}: parakeet.encoder.conv_kernel = {} must be odd", keys.source(),
                       e.conv_kernel);
    check_format(e.subsampling_factor == 8, "{}: parakeet.encoder.subsampling_factor = {}: only dw_striding 8x "
                       "subsampling is supported", keys.source(), e.subsampling_factor);
    const std::string norm = keys.string_or(p + "conv_norm_type", "batch_norm");
    check_format(norm == "batch_norm", "{}: parakeet.encoder.conv_norm_type = '{}': only batch_norm is supported",
                       keys.source(), norm);
    return e;
}

PreprocessorConfig read_preprocessor(const Keys& keys) {
    PreprocessorConfig pre;
    const std::string p = "parakeet.preprocessor.";
    pre.sample_rate = keys.integer(p + "sample_rate", 1000, 192000);
    pre.n_mels = keys.integer(p + "n_mels", 8, 1024);
    pre.n_fft = keys.integer(p + "n_fft", 16, 1 << 16);
    pre.win_length = keys.integer(p + "win_length", 2, pre.n_fft);
    pre.hop_length = keys.integer(p + "hop_length", 1, pre.n_fft);
    pre.preemph = keys.real_or(p + "preemph", 0.97f, 0.0, 1.0);
    pre.mag_power = keys.real_or(p + "mag_power", 2.0f, 0.5, 4.0);
    pre.log_zero_guard = keys.real_or(p + "log_zero_guard", 5.9604645e-08f, 0.0, 1.0);
    check_format(pre.n_fft % 2 == 0, "{}: parakeet.preprocessor.n_fft = {} must be even", keys.source(), pre.n_fft);
    const std::string normalize = keys.string_or(p + "normalize", "per_feature");
    check_format(normalize == "per_feature", "{}: parakeet.preprocessor.normalize = '{}': only per_feature is "
                       "supported", keys.source(), normalize);
    return pre;
}

TransducerConfig read_transducer(const Keys& keys, bool tdt) {
    TransducerConfig t;
    t.pred_hidden = keys.integer("parakeet.decoder.pred_hidden", 1, kMaxDim);
    t.pred_rnn_layers = keys.integer("parakeet.decoder.pred_rnn_layers", 1, 16);
    t.joint_hidden = keys.integer("parakeet.joint.joint_hidden", 1, kMaxDim);
    const std::string activation = keys.string_or("parakeet.joint.activation", "relu");
    check_format(activation == "relu", "{}: parakeet.joint.activation = '{}': only relu is supported",
                       keys.source(), activation);
    if (tdt) {
        const gguf::Array& durations = keys.array("parakeet.tdt.durations");
        check_format(!durations.items.empty(), "{}: parakeet.tdt.durations is empty", keys.source());
        for (const gguf::Value& d : durations.items) {
            const auto v = d.as_int();
            check_format(v.has_value() && *v >= 0 && *v <= 1024,
                               "{}: parakeet.tdt.durations holds {}, not a duration in [0, 1024]", keys.source(),
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
    throw FormatError(fmt::format("unknown parakeet.arch '{}' (expected ctc, rnnt, tdt, hybrid_rnnt_ctc or "
                                  "hybrid_tdt_ctc)", name));
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
    const Keys keys(file);
    const std::string architecture = keys.string("general.architecture");
    check_format(architecture == "parakeet", "{}: general.architecture is '{}', not a Parakeet model ('parakeet')",
                       file.source(), architecture);
    ParakeetConfig c;
    try {
        c.arch = parse_arch(keys.string("parakeet.arch"));
    } catch (const FormatError& e) {
        throw FormatError(fmt::format("{}: {}", file.source(), e.what()));
    }
    c.encoder = read_encoder(keys);
    c.preprocessor = read_preprocessor(keys);
    check_format(c.preprocessor.n_mels == c.encoder.feat_in,
                       "{}: parakeet.preprocessor.n_mels = {} differs from parakeet.encoder.feat_in = {}", file.source(),
                       c.preprocessor.n_mels, c.encoder.feat_in);
    c.vocab_size = keys.integer("parakeet.vocab_size", 1, 1 << 20);
    c.blank_id = keys.integer("parakeet.blank_id", 0, 1 << 20);
    check_format(c.blank_id == c.vocab_size, "{}: parakeet.blank_id = {} must equal parakeet.vocab_size = {}",
                       file.source(), c.blank_id, c.vocab_size);
    const gguf::Array& pieces = keys.array("parakeet.tokenizer.pieces");
    check_format(static_cast<std::int64_t>(pieces.items.size()) == c.vocab_size,
                       "{}: parakeet.tokenizer.pieces has {} pieces, parakeet.vocab_size is {}", file.source(),
                       pieces.items.size(), c.vocab_size);
    for (const gguf::Value& piece : pieces.items) {
        const std::string* text = piece.string();
        check_format(text != nullptr, "{}: parakeet.tokenizer.pieces holds a non-string {}", file.source(),
                           piece.to_string());
        c.pieces.push_back(*text);
    }
    if (has_transducer(c.arch)) c.transducer = read_transducer(keys, has_durations(c.arch));
    return c;
}

}  // namespace forge::asr
