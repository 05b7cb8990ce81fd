// The mixture-of-experts feed-forward of qwen3moe and gpt-oss, as llama.cpp's build_moe_ffn
// runs it. qwen3moe:
//
//   p = softmax(W_router · xn);  the k most probable experts e_1..e_k, w_j = p_{e_j} / Σ p_{e_j}
//   out = Σ_j w_j · W_down[e_j] · (silu(W_gate[e_j] · xn) * (W_up[e_j] · xn))
//
// gpt-oss: l = W_router · xn + b; the k largest logits e_1..e_k, w = softmax(l_{e_1..e_k}); every
// projection has its expert's bias, and silu(gate) * up is swiglu_oai (core/infer/row_ops.h).
// Summed in the router's order (largest first), as llama.cpp adds its expert views.
// The batch's rows are grouped by expert (llama.cpp's mul_mat_id): each expert that any row
// chose multiplies all of its rows, so in prefill every chosen expert's weights stream once per
// step, and in decoding only the chosen experts' bytes are read. All the chosen experts' gate
// and up products go to the thread pool as one pass (infer::linear_rows), and their down
// products as another, split over (expert, strip of rows) tasks: with 2 threads and 8 experts
// of 768 rows, one pass per expert and projection would spend a step in synchronization and in
// threads waiting on the slower one. Each row's result depends only on that row (every
// product is row-independent and every sum has a fixed order), so a sequence gets the same
// bits alone or batched.
#pragma once

#include "core/infer/experts.h"
#include "core/infer/linear.h"
#include "models/llm/hparams.h"
#include "models/llm/weights.h"

#include <cstdint>
#include <span>
#include <vector>

namespace forge::llm {

class MoeFeedForward {
public:
    // Buffers for up to max_rows rows of a model with h.moe's experts.
    MoeFeedForward(const Hparams& h, std::int64_t max_rows);

    // What run()'s scratch must hold beyond one row per row: every row once per chosen expert,
    // and a product per chosen expert and projection in one pass.
    static std::int64_t activation_rows(const Hparams& h, std::int64_t max_rows);
    static std::int64_t products_per_pass(const Hparams& h);

    // out [n, n_embd] = the experts' mixture for each of the n rows of xn [n, n_embd]; scratch
    // made for activation_rows() and products_per_pass().
    void run(const BlockWeights& w, std::span<const float> xn, std::int64_t n, std::span<float> out,
             infer::ActivationScratch& scratch);

private:
    // The assignments (row * k + j) of the batch, grouped by expert: expert e's are
    // assignments_[expert_begin_[e], expert_begin_[e + 1]), in row order; slot_ the inverse.
    void group_by_expert(std::int64_t n);
    // Every chosen expert over its rows: assignment a's weighted output into weighted_[slot_[a]].
    void run_experts(const BlockWeights& w, std::span<const float> xn, std::int64_t n, infer::ActivationScratch& scratch);
    // One product per chosen expert of `experts`, over its rows of a grouped buffer (or all over
    // row 0 when `one_row`), each output into its rows of `y` [assignments, width].
    void add_products(const infer::ExpertLinears& experts, bool one_row, std::span<float> y, std::int64_t width);

    std::int64_t n_embd_, n_expert_, k_, n_ff_exp_;
    infer::ExpertGating gating_;
    bool clamped_swiglu_;
    std::vector<float> router_;                  // [max_rows, n_expert]: logits, then probabilities
    std::vector<infer::ExpertChoice> choices_;   // [max_rows, k]
    std::vector<std::int64_t> expert_begin_;     // [n_expert + 1]
    std::vector<std::int64_t> assignments_;      // [max_rows * k]
    std::vector<std::int64_t> slot_;             // [max_rows * k]: where assignment a sits in the grouped order
    std::vector<infer::LinearRows> products_;    // [2 * n_expert]: one pass of linear_rows
    std::vector<float> inputs_;                  // [max_rows * k, n_embd]: xn's rows in the grouped order
    std::vector<float> gate_, up_;               // [max_rows * k, n_ff_exp], grouped order
    std::vector<float> weighted_;                // [max_rows * k, n_embd]: w_j times expert j's output, grouped order
};

}  // namespace forge::llm
