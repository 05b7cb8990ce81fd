// The GPT itself (gpt_config.h): token ids -> next-token logits, on nn/ modules, so the same
// code trains (with gradients) and evaluates (under ag::NoGradScope).
//
// Parameters carry their GGUF names (token_embd.weight, blk.N.attn_q.weight, ...,
// output.weight) and initialise as nanochat does: embedding N(0, 1), head N(0, 0.001),
// q/k/v/gate/up U(-sqrt(3/width), sqrt(3/width)), attn_output and ffn_down zero (every block
// starts as the identity).
#pragma once

#include "core/tensor.h"
#include "models/gpt/gpt_config.h"
#include "nn/embedding.h"
#include "nn/linear.h"
#include "nn/parameter_set.h"
#include "nn/rms_norm.h"
#include "nn/transformer_block.h"

#include <vector>

namespace forge::gpt {

class GptModel {
public:
    GptModel(const GptConfig& config, std::uint64_t seed);
    GptModel(const GptModel&) = delete;
    GptModel& operator=(const GptModel&) = delete;

    // ids [B, T] (i32 or i64), T <= context -> logits [B, T, vocab].
    Tensor forward(const Tensor& ids) const;

    const GptConfig& config() const { return config_; }
    nn::ParameterSet& params() { return params_; }
    const nn::ParameterSet& params() const { return params_; }
    // The matrices inside the blocks (Muon's); everything else is the embedding and the head.
    std::vector<Tensor> block_matrices() const;
    const Tensor& embedding_table() const { return embedding_.table; }
    const Tensor& head_weight() const { return head_.weight; }
    // Embedding rows as the first block sees them (the exported token_embd).
    Tensor normalized_embedding() const;

private:
    GptConfig config_;
    nn::ParameterSet params_;
    nn::Embedding embedding_;
    nn::RmsNorm embedding_norm_;
    std::vector<nn::TransformerBlock> blocks_;
    nn::RmsNorm final_norm_;
    nn::Linear head_;
};

}  // namespace forge::gpt
