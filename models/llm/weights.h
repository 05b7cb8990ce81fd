// The weights of a llama-family model, looked up by llama.cpp's tensor names and checked
// against the hyperparameters before anything runs.
//
// Matrices stay where they are in the mapped file when forge can multiply them as stored
// (f32, f16 and every block format with a quantized dot kernel); anything else it can decode
// (bf16, ...) is widened to f32 once at load. Where the build has the interleaved kernel,
// Q4_0 and Q8_0 matrices are copied into its layout and their mapped pages given back.
// Norm weights and biases are always f32.
#pragma once

#include "core/gguf/gguf_file.h"
#include "core/tensor.h"
#include "models/llm/hparams.h"
#include "core/infer/experts.h"
#include "core/infer/linear.h"

#include <span>
#include <vector>

namespace forge::llm {

using infer::Linear;

struct BlockWeights {
    Tensor attn_norm;
    Linear wq, wk, wv, wo;
    Tensor q_norm, k_norm;  // qwen3 only: [head_dim]
    Tensor attn_sinks;      // gpt-oss only: [n_head], each head's sink logit (core/infer/attention.h)
    Tensor post_attention_norm;  // gemma3 only: [n_embd], on the attention output
    Tensor ffn_norm;
    Tensor post_ffw_norm;        // gemma3 only: [n_embd], on the feed-forward output
    Linear ffn_gate, ffn_up, ffn_down;  // a dense feed-forward
    // qwen3moe, gpt-oss instead: the router [n_expert, n_embd] (ffn_gate_inp) and the experts
    // (ffn_{gate,up}_exps [n_expert, n_ff_exp, n_embd], ffn_down_exps [n_expert, n_embd, n_ff_exp]);
    // gpt-oss's with biases.
    Linear ffn_gate_inp;
    infer::ExpertLinears ffn_gate_exps, ffn_up_exps, ffn_down_exps;
};

struct ModelWeights {
    Tensor token_embd;  // [n_vocab, n_embd], any decodable dtype (rows are decoded on lookup)
    std::vector<BlockWeights> blocks;
    Tensor output_norm;
    Linear output;      // token_embd itself when the file ties the embeddings
    bool tied_output = false;
    Tensor rope_freqs;  // [n_rot / 2] f32 RoPE frequency divisors (Llama 3.1+); undefined if absent
    // LongRoPE's divisors (phi3), [n_rot / 2] f32 each; undefined if absent.
    Tensor rope_factors_long, rope_factors_short;

    // The divisors RoPE uses for contexts of n_ctx_seq positions per sequence, given the
    // model's original context (RopeParams::n_ctx_orig); empty when there are none.
    std::span<const float> rope_freq_divisors(std::int64_t n_ctx_seq, std::int64_t n_ctx_orig) const;
};

// phi3 files fuse q, k and v into attn_qkv and the gate into ffn_up; those are cut into the
// layers above (views, no copy). Every tensor is validated (present, shape, dtype) before the first is used; errors name
// the file and the tensor.
ModelWeights load_weights(const gguf::GgufFile& file, const Hparams& hparams);

}  // namespace forge::llm
