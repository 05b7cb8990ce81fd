// Multi-head self-attention with Transformer-XL relative positions, as NeMo's
// RelPositionMultiHeadAttention (Conformer, FastConformer), names under a prefix
// ("encoder.layers.N.self_attn."):
//
//   q, k, v = linear_q(x), linear_k(x), linear_v(x)    heads of d_k = d / H
//   p = linear_pos(pos)                                 pos: sinusoids of offsets T-1 ... -(T-1)
//   ac = (q + pos_bias_u) · kᵀ                          content term
//   bd = rel_shift((q + pos_bias_v) · pᵀ)[:, :T]        position term, bd[i, j] sees offset i - j
//   out = linear_out( softmax((ac + bd) / sqrt(d_k)) · v )
//
// The four projections carry biases when `bias` (NeMo's use_bias); linear_pos never does.
#pragma once

#include "core/tensor.h"
#include "nn/linear.h"
#include "nn/parameter_set.h"

#include <span>
#include <string>

namespace forge::nn {

struct RelPositionAttentionConfig {
    std::int64_t dim = 0;
    std::int64_t n_head = 0;  // divides dim
    bool bias = true;
};

struct RelPositionAttention {
    RelPositionAttentionConfig config;
    Linear q, k, v, out, pos;
    Tensor pos_bias_u, pos_bias_v;  // [H, d_k]

    static RelPositionAttention make(ParameterSet& params, const std::string& prefix,
                                     const RelPositionAttentionConfig& config);
    // x [B, T, dim], positions [2T-1, dim] (relative_positions) -> [B, T, dim]. key_mask, when
    // defined, is added to the scores: [B, 1, 1, T], 0 for a real frame and a large negative
    // number for padding (padded_key_mask), so no frame attends to padding.
    Tensor operator()(const Tensor& x, const Tensor& positions, const Tensor& key_mask = {}) const;
};

// Masks of a padded batch of lengths[b] <= frames real frames: the additive attention mask
// [B, 1, 1, frames] (0 or -1e30) and the multiplicative time mask [B, frames, 1] (1 or 0).
Tensor padded_key_mask(std::span<const std::int64_t> lengths, std::int64_t frames);
Tensor padded_time_mask(std::span<const std::int64_t> lengths, std::int64_t frames);

// The sinusoidal encodings of the relative offsets T-1, T-2, ..., -(T-1): row r is offset
// T-1-r, with sin at even and cos at odd features (Transformer-XL, NeMo's RelPositionalEncoding).
Tensor relative_positions(std::int64_t length, std::int64_t dim);

// Transformer-XL's shift of a position-score matrix [..., T, 2T-1] whose column r is offset
// T-1-r: the result [..., T, T] holds at (i, j) the score of offset i - j. As in NeMo: prepend a
// zero column, view as [..., 2T, T], drop the first row, view as [..., T, 2T-1], keep T columns.
Tensor rel_shift(const Tensor& scores);

}  // namespace forge::nn
