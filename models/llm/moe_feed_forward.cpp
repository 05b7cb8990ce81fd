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
    slot_.resize(sz(max_rows * k_));
    products_.reserve(sz(products_per_pass(h)));
    inputs_.resize(sz(max_rows * k_ * n_embd_));
    gate_.resize(sz(max_rows * k_ * n_ff_exp_));
    up_.resize(sz(max_rows * k_ * n_ff_exp_));
    weighted_.resize(sz(max_rows * k_ * n_embd_));
}

std::int64_t MoeFeedForward::activation_rows(const Hparams& h, std::int64_t max_rows) {
    return max_rows * std::max<std::int64_t>(1, h.moe.n_expert_used);
}

std::int64_t MoeFeedForward::products_per_pass(const Hparams& h) { return 2 * h.moe.n_expert; }

void MoeFeedForward::run(const BlockWeights& w, std::span<const float> xn, std::int64_t n, std::span<float> out,
                         infer::ActivationScratch& scratch) {
    infer::linear(w.ffn_gate_inp, xn.first(sz(n * n_embd_)), n, router_, scratch);
    infer::route_top_k(router_, n, n_expert_, k_, choices_, gating_);
    group_by_expert(n);
    run_experts(w, xn, n, scratch);
    // Each row's mixture in the router's order: ((w_1 y_1 + w_2 y_2) + w_3 y_3) + ...
    const auto width = sz(n_embd_);
    for (std::int64_t i = 0; i < n; ++i) {
        const auto row = out.subspan(sz(i) * width, width);
        const auto choice = [&](std::int64_t j) {
            return std::span<const float>(weighted_).subspan(sz(slot_[sz(i * k_ + j)]) * width, width);
        };
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
    for (std::int64_t a = 0; a < n * k_; ++a) {
        const std::int64_t at = expert_begin_[sz(choices[sz(a)].expert)]++;
        assignments_[sz(at)] = a;
        slot_[sz(a)] = at;
    }
    std::shift_right(expert_begin_.begin(), expert_begin_.end(), 1);
    expert_begin_[0] = 0;
}

// down(silu(gate(x)) * up(x)) for every chosen expert over its rows: gate and up in one pass of
// the thread pool, down in another.
void MoeFeedForward::run_experts(const BlockWeights& w, std::span<const float> xn, std::int64_t n,
                                 infer::ActivationScratch& scratch) {
    const auto width = sz(n_embd_);
    const std::int64_t assigned = n * k_;
    // One row (decoding): every chosen expert multiplies xn itself; more: xn's rows gathered
    // in the grouped order, so each expert's rows are one run.
    const bool one_row = n == 1;
    std::span<const float> x = xn.first(sz(n) * width);
    if (!one_row) {
        for (std::int64_t at = 0; at < assigned; ++at) {
            const auto row = sz(assignments_[sz(at)] / k_);
            std::memcpy(inputs_.data() + sz(at) * width, xn.data() + row * width, width * sizeof(float));
        }
        x = std::span<const float>(inputs_).first(sz(assigned) * width);
    }
    products_.clear();
    add_products(w.ffn_gate_exps, one_row, gate_, n_ff_exp_);
    add_products(w.ffn_up_exps, one_row, up_, n_ff_exp_);
    infer::linear_rows(products_, x, one_row ? 1 : assigned, scratch);
    if (clamped_swiglu_) {
        infer::swiglu_oai_rows(gate_, up_, assigned, n_ff_exp_, kOaiAlpha, kOaiLimit);
    } else {
        infer::swiglu_rows(gate_, up_, assigned, n_ff_exp_);
    }
    products_.clear();
    add_products(w.ffn_down_exps, false, weighted_, n_embd_);
    infer::linear_rows(products_, std::span<const float>(gate_).first(sz(assigned * n_ff_exp_)), assigned, scratch);
    for (std::int64_t at = 0; at < assigned; ++at) {
        const float weight = choices_[sz(assignments_[sz(at)])].weight;
        const auto row = std::span(weighted_).subspan(sz(at) * width, width);
        infer::multiply_rows(row, std::span(&weight, 1), row);
    }
}

void MoeFeedForward::add_products(const infer::ExpertLinears& experts, bool one_row, std::span<float> y, std::int64_t width) {
    for (std::int64_t e = 0; e < n_expert_; ++e) {
        const std::int64_t begin = expert_begin_[sz(e)], rows = expert_begin_[sz(e + 1)] - begin;
        if (rows == 0) continue;
        products_.push_back({&experts[e], one_row ? 0 : begin, rows, y.subspan(sz(begin * width), sz(rows * width))});
    }
}

}  // namespace forge::llm
