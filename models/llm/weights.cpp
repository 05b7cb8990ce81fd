#include "models/llm/weights.h"

#include "core/error.h"
#include "core/gguf/tensor_loader.h"

#include <fmt/format.h>

#include <initializer_list>
#include <utility>

namespace forge::llm {

namespace {

using infer::load_expert_linears;
using infer::load_linear;

// A fused layer `prefix` ([sum of widths, n_in], and its bias when with_bias) cut into one
// layer per width, in row order. The parts are views of the one tensor (rows are whole
// blocks in every format), each interleaved where the build multiplies that layout; a row's
// dot product is the same whichever layer holds it, so the parts compute what the fused
// product would.
std::vector<Linear> load_fused_linear(const gguf::TensorLoader& load, const std::string& prefix,
                                      std::initializer_list<std::int64_t> widths, std::int64_t n_in, bool with_bias) {
    std::int64_t n_out = 0;
    for (const std::int64_t width : widths) n_out += width;
    const Tensor weight = load.matrix(prefix + ".weight", n_out, n_in);
    const Tensor bias = with_bias ? load.vector_f32(prefix + ".bias", n_out) : Tensor{};
    std::vector<Linear> parts;
    std::int64_t first = 0;
    for (const std::int64_t width : widths) {
        Linear part{weight.narrow(0, first, width), with_bias ? bias.narrow(0, first, width) : Tensor{}, nullptr};
        part.interleaved = infer::InterleavedWeights::for_file(part.weight, load.file());
        parts.push_back(std::move(part));
        first += width;
    }
    return parts;
}

// q, k and v: three tensors, or one attn_qkv stacking their rows (Phi-3 files; llama.cpp's
// create_tensor_qkv takes either for every family).
void load_qkv(const gguf::TensorLoader& load, const Hparams& h, const std::string& p, BlockWeights& b) {
    if (load.has(p + "attn_qkv.weight")) {
        std::vector<Linear> qkv =
            load_fused_linear(load, p + "attn_qkv", {h.q_width(), h.kv_width(), h.kv_width()}, h.n_embd, h.qkv_bias);
        b.wq = std::move(qkv[0]);
        b.wk = std::move(qkv[1]);
        b.wv = std::move(qkv[2]);
        return;
    }
    if (!load.has(p + "attn_q.weight")) {
        fail_format("{}: tensor {}attn_q.weight is missing (and there is no fused {}attn_qkv.weight)",
                    load.file().source(), p, p);
    }
    b.wq = load_linear(load, p + "attn_q", h.q_width(), h.n_embd, h.qkv_bias);
    b.wk = load_linear(load, p + "attn_k", h.kv_width(), h.n_embd, h.qkv_bias);
    b.wv = load_linear(load, p + "attn_v", h.kv_width(), h.n_embd, h.qkv_bias);
}

// gate and up: two tensors, or (phi3) one ffn_up holding the gate's rows then up's, the
// halves llama.cpp's ggml_swiglu splits (silu of the first).
void load_gate_up(const gguf::TensorLoader& load, const Hparams& h, const std::string& p, BlockWeights& b) {
    if (h.arch == Arch::Phi3) {
        std::vector<Linear> gate_up = load_fused_linear(load, p + "ffn_up", {h.n_ff, h.n_ff}, h.n_embd, false);
        b.ffn_gate = std::move(gate_up[0]);
        b.ffn_up = std::move(gate_up[1]);
        return;
    }
    b.ffn_gate = load_linear(load, p + "ffn_gate", h.n_ff, h.n_embd, false);
    b.ffn_up = load_linear(load, p + "ffn_up", h.n_ff, h.n_embd, false);
}

// qwen3moe, gpt-oss: the router and every expert's gate, up and down, each expert a slice of
// its 3-D tensor (core/infer/experts.h); gpt-oss's router and experts carry biases.
void load_experts(const gguf::TensorLoader& load, const Hparams& h, const std::string& p, BlockWeights& b) {
    const MoeParams& moe = h.moe;
    const bool biases = h.arch == Arch::GptOss;
    b.ffn_gate_inp = load_linear(load, p + "ffn_gate_inp", moe.n_expert, h.n_embd, biases);
    b.ffn_gate_exps = load_expert_linears(load, p + "ffn_gate_exps", moe.n_expert, moe.n_ff_exp, h.n_embd, biases);
    b.ffn_up_exps = load_expert_linears(load, p + "ffn_up_exps", moe.n_expert, moe.n_ff_exp, h.n_embd, biases);
    b.ffn_down_exps = load_expert_linears(load, p + "ffn_down_exps", moe.n_expert, h.n_embd, moe.n_ff_exp, biases);
}

BlockWeights load_block(const gguf::TensorLoader& load, const Hparams& h, std::int64_t layer) {
    const std::string p = fmt::format("blk.{}.", layer);
    BlockWeights b;
    b.attn_norm = load.vector_f32(p + "attn_norm.weight", h.n_embd);
    load_qkv(load, h, p, b);
    b.wo = load_linear(load, p + "attn_output", h.n_embd, h.q_width(), h.output_bias);
    if (h.qk_norm) {
        b.q_norm = load.vector_f32(p + "attn_q_norm.weight", h.head_dim);
        b.k_norm = load.vector_f32(p + "attn_k_norm.weight", h.head_dim);
    }
    if (h.attn_sinks) b.attn_sinks = load.vector_f32(p + "attn_sinks.weight", h.n_head);
    // gpt-oss names the norm before its feed-forward post_attention_norm (it follows attention).
    b.ffn_norm = load.vector_f32(p + (h.arch == Arch::GptOss ? "post_attention_norm.weight" : "ffn_norm.weight"), h.n_embd);
    if (h.gemma.post_norms) {
        b.post_attention_norm = load.vector_f32(p + "post_attention_norm.weight", h.n_embd);
        b.post_ffw_norm = load.vector_f32(p + "post_ffw_norm.weight", h.n_embd);
    }
    if (h.has_experts()) {
        load_experts(load, h, p, b);
        return b;
    }
    load_gate_up(load, h, p, b);
    b.ffn_down = load_linear(load, p + "ffn_down", h.n_embd, h.n_ff, false);
    return b;
}

}  // namespace

ModelWeights load_weights(const gguf::GgufFile& file, const Hparams& h) {
    const gguf::TensorLoader load(file);
    ModelWeights w;
    w.token_embd = load.raw("token_embd.weight", Shape{h.n_vocab, h.n_embd});
    w.blocks.reserve(static_cast<std::size_t>(h.n_layer));
    for (std::int64_t layer = 0; layer < h.n_layer; ++layer) w.blocks.push_back(load_block(load, h, layer));
    w.output_norm = load.vector_f32("output_norm.weight", h.n_embd);
    // Without output.weight the head reuses the embedding table (tied embeddings).
    w.tied_output = !load.has("output.weight");
    w.output = load_linear(load, w.tied_output ? "token_embd" : "output", h.n_vocab, h.n_embd, false);
    // Llama 3.1-style RoPE scaling: pair i's frequency divided by rope_freqs[i].
    if (load.has("rope_freqs.weight")) w.rope_freqs = load.vector_f32("rope_freqs.weight", h.rope.n_rot / 2);
    // LongRoPE (Phi-3, Phi-4-mini): divisors for long contexts and for short ones.
    if (load.has("rope_factors_long.weight")) {
        w.rope_factors_long = load.vector_f32("rope_factors_long.weight", h.rope.n_rot / 2);
    }
    if (load.has("rope_factors_short.weight")) {
        w.rope_factors_short = load.vector_f32("rope_factors_short.weight", h.rope.n_rot / 2);
    }
    return w;
}

// llama.cpp's llama_model::get_rope_factors: rope_freqs when the file has it, else LongRoPE's
// long divisors when the context per sequence passes the original one, else the short ones.
std::span<const float> ModelWeights::rope_freq_divisors(std::int64_t n_ctx_seq, std::int64_t n_ctx_orig) const {
    const Tensor& divisors = rope_freqs.defined()       ? rope_freqs
                             : n_ctx_seq > n_ctx_orig ? rope_factors_long
                                                      : rope_factors_short;
    return divisors.defined() ? divisors.span<float>() : std::span<const float>();
}

}  // namespace forge::llm
