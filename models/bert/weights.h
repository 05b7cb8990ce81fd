// The weights of a BERT-family encoder, by llama.cpp's tensor names (src/llama-arch.cpp), every
// one checked (present, shape, dtype) before the first is used: an error names the file and
// the tensor. Matrices stay in the mapped file where forge multiplies them as stored.
#pragma once

#include "core/gguf/gguf_file.h"
#include "core/infer/linear.h"
#include "core/tensor.h"
#include "models/bert/hparams.h"

#include <vector>

namespace forge::bert {

using infer::Linear;

// A LayerNorm's scale and shift, both [n_embd] f32.
struct Norm {
    Tensor weight, bias;
};

struct BlockWeights {
    Linear wq, wk, wv;      // bert: blk.N.attn_{q,k,v} with biases
    Linear wqkv;            // nomic-bert: blk.N.attn_qkv, rows [q | k | v], no bias
    Linear wo;              // blk.N.attn_output (bias: bert only)
    Norm attn_out_norm;     // blk.N.attn_output_norm, after the attention's residual add
    Linear ffn_gate;        // nomic-bert only
    Linear ffn_up, ffn_down;  // biases: bert only
    Norm layer_out_norm;    // blk.N.layer_output_norm, after the feed-forward's residual add
};

struct Weights {
    Tensor token_embd;      // [n_vocab, n_embd], any decodable dtype (rows decoded on lookup)
    Tensor token_types;     // [n_token_types, n_embd] f32 (widened at load if stored otherwise)
    Tensor position_embd;   // bert: [n_ctx, n_embd] f32 (likewise); undefined for nomic-bert
    Norm embd_norm;         // token_embd_norm
    std::vector<BlockWeights> blocks;
    Linear cls, cls_output; // Pooling::Rank: the classifier head cls.* (tanh) and cls.output.*
};

Weights load_weights(const gguf::GgufFile& file, const Hparams& hparams);

}  // namespace forge::bert
