// CTC forward-backward in log space, one position at a time: the specification of
// kernels/ctc.h that the simd kernels are tested against. The frame loops are
// kernels/ctc_frames.h; this file holds one frame's row steps.
#include "kernels/ctc.h"

#include "kernels/ctc_frames.h"

#include <algorithm>
#include <cmath>

namespace forge::kernels::scalar {
namespace {

using ctc_detail::kLogZero;
using ctc_detail::ScratchRows;

// log(exp(a) + exp(b) + exp(c)), exact for -inf terms (an all -inf sum stays -inf).
float log_sum_exp3(float a, float b, float c) {
    const float m = std::max({a, b, c});
    if (m == kLogZero) return kLogZero;
    return m + std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m));
}

// The log-space entry at position i of a row of length n, -inf outside it.
float at(const float* row, std::ptrdiff_t i, std::size_t n) {
    return i >= 0 && static_cast<std::size_t>(i) < n ? row[i] : kLogZero;
}

// α_t(s) = logsumexp(α_{t-1}(s), α_{t-1}(s-1), α_{t-1}(s-2) + skip(s)) + e_t(s)
void alpha_step(const float* prev, float* cur, const ScratchRows& rows, std::size_t length) {
    for (std::size_t s = 0; s < length; ++s) {
        const auto i = static_cast<std::ptrdiff_t>(s);
        cur[s] = log_sum_exp3(prev[s], at(prev, i - 1, length), at(prev, i - 2, length) + rows.skip[s]) + rows.emit[s];
    }
}

// β_t(s) = logsumexp(β_{t+1}(s), β_{t+1}(s+1), β_{t+1}(s+2) + skip(s+2)) + e_t(s)
void beta_step(const float* next, float* cur, const ScratchRows& rows, std::size_t length) {
    for (std::size_t s = 0; s < length; ++s) {
        const auto i = static_cast<std::ptrdiff_t>(s);
        const float skipped = at(next, i + 2, length) + at(rows.skip.data(), i + 2, length);
        cur[s] = log_sum_exp3(next[s], at(next, i + 1, length), skipped) + rows.emit[s];
    }
}

// x_s = log α_t(s) + log β_t(s) - e_t(s) (-inf where no path passes), and γ_t(s) =
// exp(x_s) / Σ_s exp(x_s): each frame's sum is p, so normalising by it rather than by the
// global nll cancels the rounding α and β have accumulated by this frame.
void posteriors(const float* alpha, const float* beta, const ScratchRows& rows, std::size_t length) {
    float peak = kLogZero;
    for (std::size_t s = 0; s < length; ++s) {
        const float both = alpha[s] + beta[s];
        rows.gamma[s] = both == kLogZero ? kLogZero : both - rows.emit[s];
        peak = std::max(peak, rows.gamma[s]);
    }
    float total = 0.0f;
    for (float& g : rows.gamma) total += g = std::exp(g - peak);
    for (float& g : rows.gamma) g /= total;
}

}  // namespace

float ctc_alpha(const CtcSequence& seq, std::span<float> log_alpha, std::span<float> scratch) noexcept {
    return ctc_detail::run_alpha(seq, log_alpha, scratch, alpha_step,
                                 [](float a, float b) { return log_sum_exp3(a, b, kLogZero); });
}

void ctc_gradient(const CtcSequence& seq, std::span<const float> log_alpha, float nll, std::span<float> log_beta,
                  std::span<float> scratch, std::span<float> grad) noexcept {
    ctc_detail::run_gradient(seq, log_alpha, nll, log_beta, scratch, grad, beta_step, posteriors);
}

}  // namespace forge::kernels::scalar
