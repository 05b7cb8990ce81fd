#include "models/llm/hparams.h"

#include "core/error.h"
#include "core/gguf/metadata.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace forge::llm {

namespace {

Arch parse_arch(const std::string& name, const std::string& source) {
    if (name == "llama") return Arch::Llama;
    if (name == "qwen2") return Arch::Qwen2;
    if (name == "qwen3") return Arch::Qwen3;
    if (name == "qwen3moe") return Arch::Qwen3Moe;
    if (name == "smollm3") return Arch::Smollm3;
    if (name == "phi3") return Arch::Phi3;
    if (name == "gpt-oss") return Arch::GptOss;
    if (name == "gemma3") return Arch::Gemma3;
    fail_format("{}: unsupported architecture '{}' (forge runs llama, qwen2, qwen3, qwen3moe, smollm3, phi3, gpt-oss, gemma3)",
                source, name);
}

// Which dims RoPE pairs, as llama.cpp's llama_model_rope_type: llama and smollm3 keep HF's
// interleaved pairs (the converter permutes q/k); the Qwens and phi3 rotate halves.
infer::RopeMode rope_mode(Arch arch) {
    switch (arch) {
        case Arch::Llama:
        case Arch::Smollm3: return infer::RopeMode::Normal;
        case Arch::Qwen2:
        case Arch::Qwen3:
        case Arch::Qwen3Moe:
        case Arch::Phi3:
        case Arch::GptOss: return infer::RopeMode::Neox;
        case Arch::Gemma3: return infer::RopeMode::Neox;
    }
    return infer::RopeMode::Normal;
}

// The metadata under "{arch}.": llama.cpp's keys are "llama.block_count", "qwen2.block_count", ...
class ArchKeys {
public:
    ArchKeys(const gguf::GgufFile& file, std::string prefix) : meta_(file), prefix_(std::move(prefix)) {}

    std::int64_t positive_int(const std::string& key) const {
        return meta_.integer(prefix_ + key, gguf::Range<std::int64_t>::at_least(1));
    }
    bool has(const std::string& key) const { return meta_.has(prefix_ + key); }
    std::int64_t int_in(const std::string& key, gguf::Range<std::int64_t> range) const {
        return meta_.integer(prefix_ + key, range);
    }
    std::int64_t int_or(const std::string& key, std::int64_t fallback) const {
        return meta_.integer_or(prefix_ + key, fallback);
    }
    double float_or(const std::string& key, double fallback) const { return meta_.number_or(prefix_ + key, fallback); }
    std::string string_or(const std::string& key, std::string fallback) const {
        return meta_.string_or(prefix_ + key, std::move(fallback));
    }

private:
    gguf::Metadata meta_;
    std::string prefix_;
};

// YaRN's ramp, in pairs (llama.cpp's ggml_rope_yarn_corr_dims, in float as there): pairs that
// turn more than beta_fast times over the original context keep their angle, pairs that turn
// fewer than beta_slow times are interpolated.
void set_yarn_ramp(RopeParams& rope, float n_ctx_orig, float beta_fast, float beta_slow) {
    const auto n_dims = static_cast<float>(rope.n_rot);
    const auto corr_dim = [&](float turns) {
        return n_dims * std::log(n_ctx_orig / (turns * 2.0f * std::numbers::pi_v<float>)) / (2.0f * std::log(rope.theta_base));
    };
    rope.corr_low = std::max(0.0f, std::floor(corr_dim(beta_fast)));
    rope.corr_high = std::min(n_dims - 1.0f, std::ceil(corr_dim(beta_slow)));
}

// YaRN's attention temperature 0.1 * mscale * ln(factor) + 1 (transformers' get_mscale).
float yarn_get_mscale(float factor, float mscale) {
    return factor <= 1.0f ? 1.0f : 0.1f * mscale * std::log(factor) + 1.0f;
}

// The magnitude of cos/sin under YaRN, as llama.cpp composes it: the context's
// yarn_attn_factor (cancelling the kernel's own 1 + 0.1 ln(factor) unless yarn_log_multiplier
// asks for another temperature), times rope.scaling.attn_factor, times that kernel factor.
float yarn_mscale(const ArchKeys& meta, const RopeParams& rope) {
    float attn_factor = static_cast<float>(meta.float_or("rope.scaling.yarn_attn_factor", 1.0));
    if (rope.ext_factor != 0.0f) {
        const float factor = 1.0f / rope.freq_scale;
        const auto log_mul = static_cast<float>(meta.float_or("rope.scaling.yarn_log_multiplier", 0.0));
        attn_factor = log_mul != 0.0f ? yarn_get_mscale(factor, 1.0f) / yarn_get_mscale(factor, log_mul)
                                      : yarn_get_mscale(factor, 1.0f);
        attn_factor /= 1.0f + 0.1f * std::log(factor);
    }
    attn_factor *= static_cast<float>(meta.float_or("rope.scaling.attn_factor", 1.0));
    return rope.ext_factor != 0.0f ? attn_factor * (1.0f + 0.1f * std::log(1.0f / rope.freq_scale)) : attn_factor;
}

RopeParams read_rope(const ArchKeys& meta, const Hparams& h, const std::string& source) {
    RopeParams rope;
    rope.n_rot = meta.int_or("rope.dimension_count", h.head_dim);
    rope.theta_base = static_cast<float>(meta.float_or("rope.freq_base", 10000.0));
    rope.mode = rope_mode(h.arch);
    if (rope.n_rot <= 0 || rope.n_rot > h.head_dim || rope.n_rot % 2 != 0) {
        fail_format("{}: rope.dimension_count {} must be even and at most the head size {}", source,
                    rope.n_rot, h.head_dim);
    }
    // As llama.cpp: a factor without a type is linear scaling; the old key name still counts.
    const std::string scaling = meta.string_or("rope.scaling.type", "linear");
    if (scaling != "none" && scaling != "linear" && scaling != "yarn") {
        fail_format("{}: {}.rope.scaling.type '{}' is not supported (forge does none, linear, yarn)",
                    source, h.arch_name, scaling);
    }
    const double factor = meta.float_or("rope.scaling.factor", meta.float_or("rope.scale_linear", 0.0));
    if (factor < 0.0) fail_format("{}: rope.scaling.factor {} must not be negative", source, factor);
    rope.freq_scale = scaling == "none" || factor == 0.0 ? 1.0f : static_cast<float>(1.0 / factor);

    const double ext_factor = meta.float_or("rope.scaling.yarn_ext_factor", -1.0);
    rope.ext_factor = ext_factor >= 0.0 ? static_cast<float>(ext_factor) : (scaling == "yarn" ? 1.0f : 0.0f);
    const std::int64_t n_ctx_orig = meta.int_or("rope.scaling.original_context_length", h.n_ctx_train);
    rope.n_ctx_orig = n_ctx_orig;
    if (rope.ext_factor != 0.0f && n_ctx_orig <= 0) {
        fail_format("{}: YaRN needs rope.scaling.original_context_length or context_length", source);
    }
    set_yarn_ramp(rope, static_cast<float>(n_ctx_orig),
                  static_cast<float>(meta.float_or("rope.scaling.yarn_beta_fast", 32.0)),
                  static_cast<float>(meta.float_or("rope.scaling.yarn_beta_slow", 1.0)));
    rope.mscale = yarn_mscale(meta, rope);
    return rope;
}

// The experts of a qwen3moe or gpt-oss feed-forward, as llama.cpp reads them: expert_count
// and expert_used_count are required; expert_feed_forward_length defaults to
// feed_forward_length / expert_used_count for qwen3moe and is required for gpt-oss.
MoeParams read_moe(const ArchKeys& meta, const Hparams& h, const std::string& source) {
    MoeParams moe;
    moe.n_expert = meta.positive_int("expert_count");
    moe.n_expert_used = meta.int_in("expert_used_count", {1, moe.n_expert});
    const std::int64_t fallback = h.arch == Arch::GptOss ? 0 : h.n_ff / moe.n_expert_used;
    if (fallback <= 0 && !meta.has("expert_feed_forward_length")) {
        fail_format("{}: missing metadata key '{}.expert_feed_forward_length' (and no feed_forward_length to derive it)",
                    source, h.arch_name);
    }
    moe.n_ff_exp = meta.int_or("expert_feed_forward_length", fallback);
    if (moe.n_ff_exp <= 0) fail_format("{}: {}.expert_feed_forward_length {} must be positive", source, h.arch_name, moe.n_ff_exp);
    if (h.arch == Arch::GptOss) {
        moe.gating = infer::ExpertGating::TopKThenSoftmax;
        moe.clamped_swiglu = true;
    }
    return moe;
}

// gpt-oss's sliding window, as llama_model_openai_moe::load_arch_hparams: the window is
// required, the pattern defaults to 2 (sliding, full, sliding, ...), and the local layers
// rotate as the global ones do unless the file gives them their own base (rope.freq_base_swa;
// llama.cpp's rope_freq_base_train_swa defaults to the global base, YaRN included).
void read_sliding_window(const ArchKeys& meta, Hparams& h, const std::string& source) {
    h.swa.window = meta.positive_int("attention.sliding_window");
    h.swa.pattern = meta.int_or("attention.sliding_window_pattern", 2);
    if (h.swa.pattern < 0) {
        fail_format("{}: {}.attention.sliding_window_pattern {} must not be negative", source, h.arch_name,
                    h.swa.pattern);
    }
    h.swa.rope = h.rope;
    h.swa.rope.theta_base = static_cast<float>(meta.float_or("rope.freq_base_swa", h.rope.theta_base));
}

// gemma3 as llama.cpp's load_hparams sets it up: the sliding window (when the file has one)
// on five layers of every six, RoPE base 10000 unscaled there; q scaled by 1/sqrt(head_dim)
// except on the 27B (62 layers: 1/sqrt(n_embd / n_head)); an optional final logit soft cap.
void read_gemma3(const ArchKeys& meta, Hparams& h, const std::string& source) {
    h.gate = GateActivation::Gelu;
    h.gemma.scale_embeddings = true;
    h.gemma.post_norms = true;
    const bool is_27b = h.n_layer == 62;
    h.gemma.query_scale = 1.0f / std::sqrt(static_cast<float>(is_27b ? h.n_embd / h.n_head : h.head_dim));
    h.gemma.final_logit_softcap = static_cast<float>(meta.float_or("final_logit_softcapping", 0.0));
    h.swa.window = meta.int_or("attention.sliding_window", 0);
    if (h.swa.window < 0) fail_format("{}: gemma3.attention.sliding_window {} must not be negative", source, h.swa.window);
    h.swa.pattern = 6;
    h.swa.rope = h.rope;
    h.swa.rope.theta_base = 10000.0f;
    h.swa.rope.freq_scale = 1.0f;
}

}  // namespace

Hparams read_hparams(const gguf::GgufFile& file) {
    const std::string& source = file.source();
    Hparams h;
    h.arch_name = gguf::Metadata(file).string("general.architecture");
    h.arch = parse_arch(h.arch_name, source);
    h.qkv_bias = h.arch == Arch::Qwen2 || h.arch == Arch::GptOss;
    h.output_bias = h.attn_sinks = h.arch == Arch::GptOss;
    h.qk_norm = h.arch == Arch::Qwen3 || h.arch == Arch::Qwen3Moe || h.arch == Arch::Gemma3;
    // llama.cpp fixes smollm3's step at 4 (llama_model_smollm3::load_arch_hparams reads no key).
    h.no_rope_layer_step = h.arch == Arch::Smollm3 ? 4 : 0;
    // phi3.attention.sliding_window is not read: llama.cpp turns phi3's sliding window off
    // (llama_model_phi3::load_arch_hparams; ggml-org/llama.cpp#13676), so every layer sees the
    // whole context there and here.

    const ArchKeys meta(file, h.arch_name + ".");
    h.n_embd = meta.positive_int("embedding_length");
    h.n_layer = meta.positive_int("block_count");
    // A mixture-of-experts file's dense width is only a default for the experts' (llama.cpp
    // does not require it there).
    const bool experts = h.arch == Arch::Qwen3Moe || h.arch == Arch::GptOss;
    h.n_ff = experts ? meta.int_or("feed_forward_length", 0) : meta.positive_int("feed_forward_length");
    h.n_head = meta.positive_int("attention.head_count");
    h.n_head_kv = meta.int_or("attention.head_count_kv", h.n_head);
    h.head_dim = meta.int_or("attention.key_length", h.n_embd / h.n_head);
    const std::int64_t value_length = meta.int_or("attention.value_length", h.head_dim);
    h.n_ctx_train = meta.int_or("context_length", 0);
    h.rms_eps = static_cast<float>(meta.float_or("attention.layer_norm_rms_epsilon", 1e-6));

    if (h.n_head_kv <= 0 || h.n_head % h.n_head_kv != 0) {
        fail_format("{}: head_count {} is not a multiple of head_count_kv {}", source, h.n_head, h.n_head_kv);
    }
    if (h.head_dim <= 0 || value_length != h.head_dim) {
        fail_format("{}: key_length {} and value_length {} must be equal and positive", source,
                    h.head_dim, value_length);
    }
    h.rope = read_rope(meta, h, source);
    if (experts) h.moe = read_moe(meta, h, source);
    if (h.arch == Arch::GptOss) read_sliding_window(meta, h, source);
    if (h.arch == Arch::Gemma3) read_gemma3(meta, h, source);

    const gguf::TensorInfo* embd = file.find_tensor("token_embd.weight");
    if (embd == nullptr) fail_format("{}: tensor token_embd.weight is missing", source);
    if (embd->dims.size() != 2) fail_format("{}: token_embd.weight must be 2-D", source);
    h.n_vocab = embd->dims[1];
    return h;
}

}  // namespace forge::llm
