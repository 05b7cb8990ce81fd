// Hyperparameters of the llama family of decoder-only transformers, read from GGUF metadata.
//
// llama, qwen2, qwen3, smollm3 and phi3 share one block (pre-norm attention + SwiGLU
// feed-forward, RMSNorm, RoPE, grouped-query attention); they differ only in the switches
// below (and phi3 in how its file stores the block: weights.h). qwen3moe is qwen3 with a
// mixture-of-experts feed-forward (MoeParams, models/llm/moe_feed_forward.h). gpt-oss is a
// mixture of experts too, with biases everywhere, per-head attention sinks, its clamped SwiGLU,
// softmax over the chosen experts' logits and every other layer attending to a sliding
// window (llama.cpp's LLM_ARCH_OPENAI_MOE). gemma3 adds to the block what GemmaParams lists:
// scaled embeddings, norms after attention and after the feed-forward, a GELU-gated
// feed-forward and sliding-window layers. Metadata keys
// are llama.cpp's: "{arch}.embedding_length", "{arch}.attention.head_count", ...
#pragma once

#include "core/gguf/gguf_file.h"
#include "core/infer/experts.h"
#include "core/infer/row_ops.h"

#include <cstdint>
#include <span>
#include <string>

namespace forge::llm {

enum class Arch { Llama, Qwen2, Qwen3, Qwen3Moe, Smollm3, Phi3, GptOss, Gemma3 };

// RoPE as llama.cpp sets it up from {arch}.rope.* metadata. The per-pair frequency divisors
// of Llama 3.1-style scaling are a tensor (rope_freqs.weight, see weights.h), not metadata.
struct RopeParams {
    std::int64_t n_rot = 0;       // rotated dims per head ({arch}.rope.dimension_count)
    float theta_base = 10000.0f;  // {arch}.rope.freq_base
    float freq_scale = 1.0f;      // 1 / {arch}.rope.scaling.factor (linear and yarn scaling)
    infer::RopeMode mode = infer::RopeMode::Normal;
    // YaRN (rope.scaling.type = yarn): the ramp between extrapolated and interpolated pairs
    // and the magnitude of cos/sin; see infer::RopeFrequencies (kernels/rope.h). ext_factor 0: plain RoPE.
    float ext_factor = 0.0f;
    float corr_low = 0.0f, corr_high = 0.0f;
    float mscale = 1.0f;
    // rope.scaling.original_context_length (else context_length): LongRoPE (phi3) takes its long
    // frequency divisors for contexts longer than this (weights.h).
    std::int64_t n_ctx_orig = 0;

    // The angle recipe for the kernels, with the model's divisors (empty when it has none).
    infer::RopeFrequencies frequencies(std::span<const float> freq_divisors) const {
        infer::RopeFrequencies f;
        f.theta_base = theta_base;
        f.freq_scale = freq_scale;
        f.freq_divisors = freq_divisors;
        f.ext_factor = ext_factor;
        f.corr_low = corr_low;
        f.corr_high = corr_high;
        f.mscale = mscale;
        return f;
    }
};

// A mixture-of-experts feed-forward ({arch}.expert_count, expert_used_count,
// expert_feed_forward_length): each token's router picks expert_used of expert_count SwiGLU
// experts of width n_ff_exp. n_expert 0: a dense feed-forward.
struct MoeParams {
    std::int64_t n_expert = 0;
    std::int64_t n_expert_used = 0;
    std::int64_t n_ff_exp = 0;
    // qwen3moe: softmax over every expert, top k renormalised; gpt-oss: the top k logits, then
    // softmax over them (core/infer/experts.h).
    infer::ExpertGating gating = infer::ExpertGating::SoftmaxThenTopK;
    // gpt-oss's experts run swiglu_oai (core/infer/row_ops.h), qwen3moe's plain SwiGLU.
    bool clamped_swiglu = false;
};

// The feed-forward's gate: silu (SwiGLU) or GELU's tanh approximation (gemma3's GeGLU).
enum class GateActivation { Silu, Gelu };

// What gemma3 adds to the block, as llama.cpp's gemma3 graph computes it.
struct GemmaParams {
    bool scale_embeddings = false;   // token embeddings times sqrt(n_embd)
    bool post_norms = false;         // RMSNorm of the attention and feed-forward outputs before the residual adds
    // q is multiplied by this before attention, which then scales by 1 (llama.cpp's order);
    // 0: attention scales q·k by 1/sqrt(head_dim) itself.
    float query_scale = 0.0f;
    float final_logit_softcap = 0.0f;  // {arch}.final_logit_softcapping; 0: none
};

// Sliding-window attention ({arch}.attention.sliding_window): every layer but each
// pattern-th one (llama.cpp's set_swa_pattern: il % pattern < pattern - 1) sees only the
// `window` latest positions, its own included, and rotates with `rope`. window 0: none.
struct SlidingWindow {
    std::int64_t window = 0;
    std::int64_t pattern = 0;
    RopeParams rope;
};

struct Hparams {
    Arch arch = Arch::Llama;
    std::string arch_name;
    std::int64_t n_vocab = 0;
    std::int64_t n_embd = 0;
    std::int64_t n_layer = 0;
    std::int64_t n_head = 0;
    std::int64_t n_head_kv = 0;
    std::int64_t head_dim = 0;     // key and value length per head
    std::int64_t n_ff = 0;
    std::int64_t n_ctx_train = 0;
    float rms_eps = 1e-6f;
    RopeParams rope;
    bool qkv_bias = false;         // qwen2, gpt-oss: q, k and v projections carry biases
    bool output_bias = false;      // gpt-oss: so does the attention output projection
    bool attn_sinks = false;       // gpt-oss: one attention sink logit per head (attn_sinks)
    bool qk_norm = false;          // qwen3: per-head RMSNorm of q and k before RoPE
    // smollm3: layer il leaves q and k unrotated (NoPE) when (il + 1) % no_rope_layer_step == 0;
    // 0: every layer rotates.
    std::int64_t no_rope_layer_step = 0;

    MoeParams moe;                 // qwen3moe, gpt-oss: the experts that replace the dense feed-forward
    GateActivation gate = GateActivation::Silu;
    GemmaParams gemma;             // gemma3's additions
    // The local layers of gemma3 and gpt-oss ({arch}.attention.sliding_window): layer il attends
    // to the last swa.window positions only when il % swa.pattern < swa.pattern - 1, or always
    // for a pattern of 0 (llama.cpp's set_swa_pattern: gemma3's 6 makes five local layers of
    // six, gpt-oss's 2 the even layers); a window of 0: every layer sees everything.
    SlidingWindow swa;

    bool sliding(std::int64_t layer) const {
        return swa.window > 0 && (swa.pattern == 0 || layer % swa.pattern < swa.pattern - 1);
    }
    // The window a layer attends over: swa.window, or 0 for the whole context.
    std::int64_t window(std::int64_t layer) const { return sliding(layer) ? swa.window : 0; }
    const RopeParams& rope_of(std::int64_t layer) const { return sliding(layer) ? swa.rope : rope; }

    bool rotates(std::int64_t layer) const { return no_rope_layer_step == 0 || (layer + 1) % no_rope_layer_step != 0; }
    bool has_experts() const { return moe.n_expert > 0; }

    std::int64_t q_width() const { return n_head * head_dim; }
    std::int64_t kv_width() const { return n_head_kv * head_dim; }
    std::int64_t group_size() const { return n_head / n_head_kv; }  // query heads per kv head
};

// Read and validate the hyperparameters; an architecture forge does not run is an error that
// names it and lists the supported ones. n_vocab comes from token_embd's shape.
Hparams read_hparams(const gguf::GgufFile& file);

}  // namespace forge::llm
