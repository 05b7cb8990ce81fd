// Causal self-attention with grouped-query heads, NeoX RoPE and optional QK-norm, in the
// layout llama.cpp's llama / qwen3 graphs compute (GGUF names under a prefix):
//
//   q = attn_q(x), k = attn_k(x), v = attn_v(x)       split into heads of head_dim
//   q, k = attn_q_norm(q), attn_k_norm(k)             per head, when qk_norm (qwen3)
//   q, k = rope(q), rope(k)                           at positions 0..T-1
//   out = attn_output( softmax(q·kᵀ / sqrt(head_dim), causal) · v )
//
// Query head h reads key/value head h / (n_head / n_kv_head), as in llama.cpp.
#pragma once

#include "core/ops/rope.h"
#include "core/tensor.h"
#include "nn/linear.h"
#include "nn/parameter_set.h"
#include "nn/rms_norm.h"

#include <string>

namespace forge::nn {

struct AttentionConfig {
    std::int64_t dim = 0;
    std::int64_t n_head = 0;
    std::int64_t n_kv_head = 0;  // divides n_head
    std::int64_t head_dim = 0;
    float rope_base = 10000.0f;
    RopeMode rope_mode = RopeMode::Neox;
    bool qk_norm = false;
    bool learnable_qk_norm = true;  // false: parameter-free norms (nanochat)
    float norm_eps = 1e-6f;
};

struct Attention {
    AttentionConfig config;
    Linear q, k, v, o;
    RmsNorm q_norm, k_norm;  // used when config.qk_norm

    static Attention make(ParameterSet& params, const std::string& prefix, const AttentionConfig& config,
                          const Init& in_init, const Init& out_init);
    Tensor operator()(const Tensor& x) const;  // [B, T, dim] -> [B, T, dim]
};

// The attention itself, between the projections: q [B, T, H, hd], k and v [B, T, Hkv, hd]
// (heads already normalized where the model does) -> softmax(rope(q)·rope(k)ᵀ / sqrt(hd),
// causal)·v as [B, T, H·hd], positions 0..T-1. rotate false leaves q and k unrotated
// (smollm3's NoPE layers). LoRA's trainable llama-family model (models/llm/lora/) shares it.
Tensor causal_self_attention(Tensor qh, Tensor kh, const Tensor& vh, const RopeConfig& rope, bool rotate = true);

}  // namespace forge::nn
