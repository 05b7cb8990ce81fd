// The BERT-family encoder's forward pass over one whole input (no cache: every token attends to
// every token), as llama.cpp's llm_build_bert computes it:
//
//   x = LayerNorm(token_embd[t] + token_types[0] (+ position_embd[i], bert))
//   each block:  a = LayerNorm(x + Wo · attention(q, k, v))            q, k, v = Wq x, Wk x, Wv x
//                                                                     (nomic-bert: rope(q), rope(k))
//                x = LayerNorm(a + FFN(a))   FFN: bert  Wdown · gelu(Wup a)
//                                                 nomic Wdown · (silu(Wgate a) * Wup a)
//
// Kernels only through core's inference front-end (core/infer).
#pragma once

#include "core/infer/linear.h"
#include "models/bert/hparams.h"
#include "models/bert/weights.h"

#include <cstdint>
#include <span>
#include <vector>

namespace forge::bert {

class Encoder {
public:
    Encoder(const Hparams& hparams, const Weights& weights) : h_(hparams), w_(weights) {}

    // The last block's output for every token, [tokens.size(), n_embd]. Ids and length are the
    // caller's to check.
    std::vector<float> forward(std::span<const std::int32_t> tokens) const;

    // Several inputs in one pass: `tokens` is their ids one after the other, `lengths` how many
    // each has. Every matrix multiplies the rows of all of them at once (the weights are read
    // once per pass, not once per input); each input attends only to itself and counts its
    // positions from 0. Returns the rows in the same order, [tokens.size(), n_embd]: each
    // input's rows are those forward() gives it alone, bit for bit (every op but attention
    // works row by row, and the GEMM's sum over a row does not depend on the other rows).
    std::vector<float> forward(std::span<const std::int32_t> tokens, std::span<const std::int64_t> lengths) const;

private:
    void embed(std::span<const std::int32_t> tokens, std::span<const std::int64_t> lengths, std::span<float> x) const;
    void attention_block(const BlockWeights& b, std::span<const std::int64_t> lengths, std::span<float> x,
                         std::span<const float> cos, std::span<const float> sin, infer::ActivationScratch& scratch) const;
    void feed_forward_block(const BlockWeights& b, std::int64_t n, std::span<float> x,
                            infer::ActivationScratch& scratch) const;

    const Hparams& h_;
    const Weights& w_;
};

}  // namespace forge::bert
