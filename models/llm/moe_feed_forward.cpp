#include "models/llm/moe_feed_forward.h"

#include "core/checked_math.h"
#include "core/infer/row_ops.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace forge::llm {

namespace {

// gpt-oss's SwiGLU constants, fixed in llama.cpp's build_moe_ffn (no metadata key).
constexpr float kOaiAlpha = 1.702f, kOaiLimit = 7.0f;

}  // namespace

MoeFeedForward::MoeFeedForward(const Hparams& h, std::int64_t max_rows)
    : n_embd_(h.n_embd), n_expert_(h.moe.n_expert), k_(h.moe.n_expert_used), n_ff_exp_(h.moe.n_ff_exp),
      gating_(h.moe.gating), clamped_swiglu_(h.moe.clamped_swiglu) {
    router_.resize(sz(max_rows * n_expert_));
    choices_.resize(sz(max_rows * k_));
    expert_begin_.resize(sz(n_expert_ + 1));
    assignments_.resize(sz(max_rows * k_));
    inputs_.resize(sz(max_rows * n_embd_));
    gate_.resize(sz(max_rows * n_ff_exp_));
    up_.resize(sz(max_rows * n_ff_exp_));
    down_.resize(sz(max_rows * n_embd_));
    weighted_.resize(sz(max_rows * k_ * n_embd_));
}

void MoeFeedForward::run(const BlockWeights& w, std::span<const float> xn, std::int64_t n, std::span<float> out,
                         infer::ActivationScratch& scratch) {
    infer::linear(w.ffn_gate_inp, xn.first(sz(n * n_embd_)), n, router_, scratch);
    infer::route_top_k(router_, n, n_expert_, k_, choices_, gating_);
    group_by_expert(n);
    for (std::int64_t e = 0; e < n_expert_; ++e) {
        if (expert_begin_[sz(e + 1)] > expert_begin_[sz(e)]) run_expert(w, e, xn, scratch);
    }
    // Each row's mixture in the router's order: ((w_1 y_1 + w_2 y_2) + w_3 y_3) + ...
    const auto width = sz(n_embd_);
    for (std::int64_t i = 0; i < n; ++i) {
        const auto row = out.subspan(sz(i) * width, width);
        const auto choice = [&](std::int64_t j) { return std::span<const float>(weighted_).subspan(sz(i * k_ + j) * width, width); };
        std::ranges::copy(choice(0), row.begin());
        for (std::int64_t j = 1; j < k_; ++j) infer::add_rows(row, choice(j));
    }
}

// A counting sort of the assignments by expert, stable in row order.
void MoeFeedForward::group_by_expert(std::int64_t n) {
    const auto choices = std::span(choices_).first(sz(n * k_));
    std::ranges::fill(expert_begin_, 0);
    for (const infer::ExpertChoice& c : choices) ++expert_begin_[sz(c.expert) + 1];
    std::partial_sum(expert_begin_.begin(), expert_begin_.end(), expert_begin_.begin());
    // Filling advances each expert's begin to its end, the next expert's begin: shift them back.
    for (std::int64_t a = 0; a < n * k_; ++a) assignments_[sz(expert_begin_[sz(choices[sz(a)].expert)]++)] = a;
    std::shift_right(expert_begin_.begin(), expert_begin_.end(), 1);
    expert_begin_[0] = 0;
}

// The expert's rows of xn gathered, then down(silu(gate(x)) * up(x)) for all of them at once.
void MoeFeedForward::run_expert(const BlockWeights& w, std::int64_t expert, std::span<const float> xn,
                                infer::ActivationScratch& scratch) {
    const auto width = sz(n_embd_);
    const std::int64_t begin = expert_begin_[sz(expert)], m = expert_begin_[sz(expert + 1)] - begin;
    const auto mine = std::span(assignments_).subspan(sz(begin), sz(m));
    for (std::size_t r = 0; r < mine.size(); ++r) {
        const auto row = sz(mine[r] / k_);
        std::memcpy(inputs_.data() + r * width, xn.data() + row * width, width * sizeof(float));
    }
    const auto rows = std::span<const float>(inputs_).first(sz(m) * width);
    const infer::LinearOutput gate_up[] = {{&w.ffn_gate_exps[expert], gate_}, {&w.ffn_up_exps[expert], up_}};
    infer::linear_shared_input(gate_up, rows, m, scratch);
    if (clamped_swiglu_) {
        infer::swiglu_oai_rows(gate_, up_, m, n_ff_exp_, kOaiAlpha, kOaiLimit);
    } else {
        infer::swiglu_rows(gate_, up_, m, n_ff_exp_);
    }
    infer::linear(w.ffn_down_exps[expert], std::span<const float>(gate_).first(sz(m * n_ff_exp_)), m, down_, scratch);
    for (std::size_t r = 0; r < mine.size(); ++r) {
        const float weight = choices_[sz(mine[r])].weight;
        infer::multiply_rows(std::span<const float>(down_).subspan(r * width, width), std::span(&weight, 1),
                             std::span(weighted_).subspan(sz(mine[r]) * width, width));
    }
}

}  // namespace forge::llm
