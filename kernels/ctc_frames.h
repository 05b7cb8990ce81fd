// What both backends' CTC kernels share: the blank-extended label sequence z of kernels/ctc.h
// (which class each position s emits, where a path may skip a blank, one frame's emissions
// gathered into a row that the recursions walk with unit stride) and the loops over frames.
// A backend supplies only the per-frame row steps, the part that is worth vectorizing.
#pragma once

#include "kernels/ctc.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>

namespace forge::kernels::ctc_detail {

inline constexpr float kLogZero = -std::numeric_limits<float>::infinity();

// The scratch of ctc_scratch_floats(S), three rows of L.
struct ScratchRows {
    std::span<float> emit;   // e_t(s) of the current frame
    std::span<float> skip;   // fill_skip_mask
    std::span<float> gamma;  // γ_t(s) of the current frame
};

inline ScratchRows split_scratch(std::span<float> scratch, std::size_t length) {
    return {scratch.subspan(0, length), scratch.subspan(length, length), scratch.subspan(2 * length, length)};
}

// z_s: blank at even positions, l_{(s+1)/2} at odd ones.
inline std::int32_t extended_label(const CtcSequence& seq, std::size_t s) {
    return s % 2 == 0 ? seq.blank : seq.labels[(s - 1) / 2];
}

// skip[s] = 0 where α_{t-1}(s-2) feeds α_t(s) (a label differing from the one two back), else
// -inf: added to the skipped term, it removes it from the log-sum-exp.
inline void fill_skip_mask(const CtcSequence& seq, std::span<float> skip) {
    for (std::size_t s = 0; s < skip.size(); ++s) {
        const bool can_skip = s % 2 == 1 && s >= 3 && seq.labels[(s - 1) / 2] != seq.labels[(s - 3) / 2];
        skip[s] = can_skip ? 0.0f : kLogZero;
    }
}

// emit[s] = log_probs[t, z_s].
inline void fill_emissions(const CtcSequence& seq, std::size_t t, std::span<float> emit) {
    const float* row = seq.log_probs + t * seq.classes;
    for (std::size_t s = 0; s < emit.size(); ++s) emit[s] = row[extended_label(seq, s)];
}

// The first frame of α: a path starts on the leading blank or on the first label.
inline void start_alpha(std::span<const float> emit, std::span<float> alpha_row) {
    for (float& a : alpha_row) a = kLogZero;
    alpha_row[0] = emit[0];
    if (alpha_row.size() > 1) alpha_row[1] = emit[1];
}

// The last frame of β: a path ends on the last label or on the trailing blank.
inline void start_beta(std::span<const float> emit, std::span<float> beta_row) {
    const std::size_t length = beta_row.size();
    for (float& b : beta_row) b = kLogZero;
    beta_row[length - 1] = emit[length - 1];
    if (length > 1) beta_row[length - 2] = emit[length - 2];
}

// grad_row[z_s] -= γ_t(s) for every position: the posteriors of one frame summed per class.
inline void scatter_posteriors(const CtcSequence& seq, std::span<const float> gamma, float* grad_row) {
    for (std::size_t s = 0; s < gamma.size(); ++s) grad_row[extended_label(seq, s)] -= gamma[s];
}

// The forward pass over frames. step(prev, cur, rows, L) writes α_t from α_{t-1}; finish(a, b)
// returns logsumexp(a, b).
template <typename Step, typename LogSumExp2>
float run_alpha(const CtcSequence& seq, std::span<float> log_alpha, std::span<float> scratch, Step step,
                LogSumExp2 log_sum_exp2) {
    const std::size_t length = ctc_extended_length(seq.labels.size());
    const ScratchRows rows = split_scratch(scratch, length);
    fill_skip_mask(seq, rows.skip);
    fill_emissions(seq, 0, rows.emit);
    start_alpha(rows.emit, log_alpha.first(length));
    for (std::size_t t = 1; t < seq.frames; ++t) {
        fill_emissions(seq, t, rows.emit);
        step(log_alpha.data() + (t - 1) * length, log_alpha.data() + t * length, rows, length);
    }
    const float* last = log_alpha.data() + (seq.frames - 1) * length;
    return -log_sum_exp2(last[length - 1], length > 1 ? last[length - 2] : kLogZero);
}

// The backward pass over frames, last to first: step(next, cur, rows, L) writes β_t from
// β_{t+1}; posteriors(alpha_t, beta_t, rows, L) fills rows.gamma, which is then summed per
// class into the frame's gradient row. With nll = +inf (no path) the gradient stays zero.
template <typename Step, typename Posteriors>
void run_gradient(const CtcSequence& seq, std::span<const float> log_alpha, float nll, std::span<float> log_beta,
                  std::span<float> scratch, std::span<float> grad, Step step, Posteriors posteriors) {
    const std::size_t length = ctc_extended_length(seq.labels.size());
    const ScratchRows rows = split_scratch(scratch, length);
    std::fill(grad.begin(), grad.begin() + static_cast<std::ptrdiff_t>(seq.frames * seq.classes), 0.0f);
    fill_skip_mask(seq, rows.skip);
    for (std::size_t t = seq.frames; t-- > 0;) {
        fill_emissions(seq, t, rows.emit);
        float* cur = log_beta.data() + t * length;
        if (t + 1 == seq.frames) start_beta(rows.emit, {cur, length});
        else step(cur + length, cur, rows, length);
        if (nll == -kLogZero) continue;
        posteriors(log_alpha.data() + t * length, cur, rows, length);
        scatter_posteriors(seq, rows.gamma, grad.data() + t * seq.classes);
    }
}

}  // namespace forge::kernels::ctc_detail
