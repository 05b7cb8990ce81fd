#include "models/llm/hparams.h"

#include "core/error.h"

#include <cmath>
#include <optional>

namespace forge::llm {

namespace {

Arch parse_arch(const std::string& name, const std::string& source) {
    if (name == "llama") return Arch::Llama;
    if (name == "qwen2") return Arch::Qwen2;
    if (name == "qwen3") return Arch::Qwen3;
    throw FormatError(fmt::format("{}: unsupported architecture '{}' (forge runs llama, qwen2, qwen3)", source, name));
}

// Reads "{arch}.<key>" with the file's name in every error.
class MetadataReader {
public:
    MetadataReader(const gguf::GgufFile& file, std::string prefix) : file_(file), prefix_(std::move(prefix)) {}

    std::optional<std::int64_t> optional_int(const std::string& key) const {
        const gguf::Value* value = file_.find(prefix_ + key);
        if (value == nullptr) return std::nullopt;
        const auto number = value->as_int();
        if (!number) throw FormatError(fmt::format("{}: metadata {}{} is not an integer", file_.source(), prefix_, key));
        return number;
    }
    std::int64_t positive_int(const std::string& key) const {
        const auto number = optional_int(key);
        if (!number) throw FormatError(fmt::format("{}: metadata {}{} is missing", file_.source(), prefix_, key));
        if (*number <= 0) throw FormatError(fmt::format("{}: metadata {}{} = {} must be positive", file_.source(), prefix_, key, *number));
        return *number;
    }
    std::optional<double> optional_float(const std::string& key) const {
        const gguf::Value* value = file_.find(prefix_ + key);
        if (value == nullptr) return std::nullopt;
        const auto number = value->as_double();
        if (!number) throw FormatError(fmt::format("{}: metadata {}{} is not a number", file_.source(), prefix_, key));
        return number;
    }
    std::optional<std::string> optional_string(const std::string& key) const {
        const gguf::Value* value = file_.find(prefix_ + key);
        if (value == nullptr || value->string() == nullptr) return std::nullopt;
        return *value->string();
    }

private:
    const gguf::GgufFile& file_;
    std::string prefix_;
};

RopeParams read_rope(const MetadataReader& meta, const Hparams& h, const std::string& source) {
    RopeParams rope;
    rope.n_rot = meta.optional_int("rope.dimension_count").value_or(h.head_dim);
    rope.theta_base = static_cast<float>(meta.optional_float("rope.freq_base").value_or(10000.0));
    // llama keeps HF's interleaved pairs (the converter permutes q/k); the Qwens rotate halves.
    rope.mode = h.arch == Arch::Llama ? kernels::RopeMode::Normal : kernels::RopeMode::Neox;
    const std::string scaling = meta.optional_string("rope.scaling.type").value_or("none");
    const double factor = meta.optional_float("rope.scaling.factor").value_or(1.0);
    if (scaling == "linear") {
        if (!(factor > 0.0)) throw FormatError(fmt::format("{}: rope.scaling.factor {} must be positive", source, factor));
        rope.freq_scale = static_cast<float>(1.0 / factor);
    } else if (scaling != "none" && !(scaling.empty())) {
        throw FormatError(fmt::format("{}: RoPE scaling '{}' is not supported (forge does none and linear)", source, scaling));
    }
    if (rope.n_rot <= 0 || rope.n_rot > h.head_dim || rope.n_rot % 2 != 0) {
        throw FormatError(fmt::format("{}: rope.dimension_count {} must be even and at most the head size {}", source,
                                      rope.n_rot, h.head_dim));
    }
    return rope;
}

}  // namespace

Hparams read_hparams(const gguf::GgufFile& file) {
    const std::string& source = file.source();
    const gguf::Value* arch_value = file.find("general.architecture");
    if (arch_value == nullptr || arch_value->string() == nullptr) {
        throw FormatError(fmt::format("{}: general.architecture is missing", source));
    }
    Hparams h;
    h.arch_name = *arch_value->string();
    h.arch = parse_arch(h.arch_name, source);
    h.qkv_bias = h.arch == Arch::Qwen2;
    h.qk_norm = h.arch == Arch::Qwen3;

    const MetadataReader meta(file, h.arch_name + ".");
    h.n_embd = meta.positive_int("embedding_length");
    h.n_layer = meta.positive_int("block_count");
    h.n_ff = meta.positive_int("feed_forward_length");
    h.n_head = meta.positive_int("attention.head_count");
    h.n_head_kv = meta.optional_int("attention.head_count_kv").value_or(h.n_head);
    h.head_dim = meta.optional_int("attention.key_length").value_or(h.n_embd / h.n_head);
    const std::int64_t value_length = meta.optional_int("attention.value_length").value_or(h.head_dim);
    h.n_ctx_train = meta.optional_int("context_length").value_or(0);
    h.rms_eps = static_cast<float>(meta.optional_float("attention.layer_norm_rms_epsilon").value_or(1e-6));

    if (h.n_head_kv <= 0 || h.n_head % h.n_head_kv != 0) {
        throw FormatError(fmt::format("{}: head_count {} is not a multiple of head_count_kv {}", source, h.n_head, h.n_head_kv));
    }
    if (h.head_dim <= 0 || value_length != h.head_dim) {
        throw FormatError(fmt::format("{}: key_length {} and value_length {} must be equal and positive", source,
                                      h.head_dim, value_length));
    }
    h.rope = read_rope(meta, h, source);

    const gguf::TensorInfo* embd = file.find_tensor("token_embd.weight");
    if (embd == nullptr) throw FormatError(fmt::format("{}: tensor token_embd.weight is missing", source));
    if (embd->dims.size() != 2) throw FormatError(fmt::format("{}: token_embd.weight must be 2-D", source));
    h.n_vocab = embd->dims[1];
    return h;
}

}  // namespace forge::llm
