#include "models/llm/weights.h"

#include "core/error.h"
#include "core/gguf/tensor_loader.h"

#include <fmt/format.h>

namespace forge::llm {

namespace {

using infer::load_expert_linears;
using infer::load_linear;

void load_experts(const gguf::TensorLoader& load, const Hparams& h, const std::string& p, BlockWeights& b) {
    const MoeParams& moe = h.moe;
    b.ffn_gate_inp = load_linear(load, p + "ffn_gate_inp", moe.n_expert, h.n_embd, false);
    b.ffn_gate_exps = load_expert_linears(load, p + "ffn_gate_exps.weight", moe.n_expert, moe.n_ff_exp, h.n_embd);
    b.ffn_up_exps = load_expert_linears(load, p + "ffn_up_exps.weight", moe.n_expert, moe.n_ff_exp, h.n_embd);
    b.ffn_down_exps = load_expert_linears(load, p + "ffn_down_exps.weight", moe.n_expert, h.n_embd, moe.n_ff_exp);
}

BlockWeights load_block(const gguf::TensorLoader& load, const Hparams& h, std::int64_t layer) {
    const std::string p = fmt::format("blk.{}.", layer);
    BlockWeights b;
    b.attn_norm = load.vector_f32(p + "attn_norm.weight", h.n_embd);
    b.wq = load_linear(load, p + "attn_q", h.q_width(), h.n_embd, h.qkv_bias);
    b.wk = load_linear(load, p + "attn_k", h.kv_width(), h.n_embd, h.qkv_bias);
    b.wv = load_linear(load, p + "attn_v", h.kv_width(), h.n_embd, h.qkv_bias);
    b.wo = load_linear(load, p + "attn_output", h.n_embd, h.q_width(), false);
    if (h.qk_norm) {
        b.q_norm = load.vector_f32(p + "attn_q_norm.weight", h.head_dim);
        b.k_norm = load.vector_f32(p + "attn_k_norm.weight", h.head_dim);
    }
    b.ffn_norm = load.vector_f32(p + "ffn_norm.weight", h.n_embd);
    if (h.has_experts()) {
        load_experts(load, h, p, b);
        return b;
    }
    b.ffn_gate = load_linear(load, p + "ffn_gate", h.n_ff, h.n_embd, false);
    b.ffn_up = load_linear(load, p + "ffn_up", h.n_ff, h.n_embd, false);
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
    return w;
}

}  // namespace forge::llm
