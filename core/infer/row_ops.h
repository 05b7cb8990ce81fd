// The row-wise operations of a transformer forward pass on raw row-major buffers, split over
// the thread pool by rows (each row's result depends only on that row): RMSNorm, LayerNorm, the
// residual add, SwiGLU, GELU, RoPE at each row's own position, and the argmax of each row of
// logits; and the element-wise add and multiply that NAM's real-time models (models/nam) run on
// one row of a block at a time.
#pragma once

#include "kernels/backend.h"
#include "kernels/binary.h"
#include "kernels/rope.h"

#include <cstdint>
#include <span>

namespace forge::infer {

// How a model names its RoPE variant and frequencies (models/llm/hparams.h): the kernel's types.
using kernels::RopeFrequencies;
using kernels::RopeMode;

// y = rmsnorm(x) * weight for each of `rows` rows of `width` values (in place when x is y).
void rmsnorm_rows(std::span<const float> x, std::span<float> y, std::int64_t rows, std::int64_t width,
                  std::span<const float> weight, float eps);

// y = layernorm(x) * weight + bias for each of `rows` rows of `width` values (in place when x
// is y): the biased variance, as BERT and llama.cpp's LLM_NORM compute it.
void layernorm_rows(std::span<const float> x, std::span<float> y, std::int64_t rows, std::int64_t width,
                    std::span<const float> weight, std::span<const float> bias, float eps);

// y += x, elementwise. Inline, as multiply_rows: NAM calls them once per row of a block.
inline void add_rows(std::span<float> y, std::span<const float> x) {
    kernels::active::binary(kernels::BinaryOp::Add, y, x, y);
}

// y = a * b, elementwise; a b of one value multiplies every element by it. y may be a.
inline void multiply_rows(std::span<const float> a, std::span<const float> b, std::span<float> y) {
    kernels::active::binary(kernels::BinaryOp::Mul, a, b, y);
}

// gate = silu(gate) * up for `rows` rows of `width` values.
void swiglu_rows(std::span<float> gate, std::span<const float> up, std::int64_t rows, std::int64_t width);

// gpt-oss's clamped SwiGLU (ggml_swiglu_oai), for `rows` rows of `width` values:
//   g = min(gate, limit), u = clamp(up, -limit, limit), gate = g * sigmoid(alpha * g) * (u + 1)
// (alpha 1.702 and limit 7 in llama.cpp's build_moe_ffn for gpt-oss).
void swiglu_oai_rows(std::span<float> gate, std::span<const float> up, std::int64_t rows, std::int64_t width,
                     float alpha, float limit);

// gate = gelu(gate) * up for `rows` rows of `width` values, GELU as llama.cpp's CPU backend
// computes it there (gemma3's feed-forward): the input rounded to f16 and looked up in ggml's
// f16 table (its entries computed as ggml_cpu_init computes them), 0 at or below -10 and the
// input at or above 10.
void geglu_rows(std::span<float> gate, std::span<const float> up, std::int64_t rows, std::int64_t width);

// x = gelu(x) in place, the tanh approximation (GPT-2's; what ggml_gelu computes and BERT's
// feed-forward uses in llama.cpp), over every value of `x`.
void gelu_rows(std::span<float> x);

// The RoPE angles of each row's position: cos and sin [positions.size(), n_rot / 2], computed
// once per forward pass (double-precision sin/cos per pair: more work than the rotations) and
// shared by every layer's q and k.
void rope_angles_rows(std::span<const std::int64_t> positions, const kernels::RopeFrequencies& frequencies,
                      std::int64_t half, std::span<float> cos, std::span<float> sin);

// RoPE on `n_heads` heads of `head_dim` values in each row, row i with angles row i of cos/sin.
void rope_rows(std::span<float> rows, std::int64_t n_rows, std::int64_t n_heads, std::int64_t head_dim,
               kernels::RopeMode mode, std::span<const float> cos, std::span<const float> sin, std::int64_t half);

// out[i] = the index of the largest of row i's `width` values, for `rows` rows: each sequence's
// greedy token after a batched step. The lowest index among equal values, as std::max_element
// gives (a NaN counts as larger than any number). Vectorized, and the rows split over the
// pool: with a 151936-token vocabulary, std::max_element on four rows took 0.4 ms on one
// thread, 2% of a four-stream mixture-of-experts decode step.
void argmax_rows(std::span<const float> x, std::int64_t rows, std::int64_t width, std::span<std::int64_t> out);

}  // namespace forge::infer
