// Connectionist temporal classification (Graves et al., ICML 2006) over one sequence: the
// forward-backward recursions in log space, and the gradient of the negative log-likelihood.
//
// The target labels l_1..l_S are extended with blanks, z = (b, l_1, b, l_2, ..., l_S, b), of
// length L = 2S + 1. With y_t(k) = exp(log_probs[t, k]) and e_t(s) = log y_t(z_s):
//
//   log α_0(0) = e_0(0),  log α_0(1) = e_0(1),  every other log α_0(s) = -inf
//   log α_t(s) = logsumexp(α_{t-1}(s), α_{t-1}(s-1), [skip(s)] α_{t-1}(s-2)) + e_t(s)
//   nll = -log p(l | x) = -logsumexp(α_{T-1}(L-1), α_{T-1}(L-2))
//
// where skip(s) holds for a label position (s odd) whose label differs from the one two
// positions back: a path may jump over the blank between two different labels, never between
// two equal ones. β runs the same recursion backwards from the last frame, and like α it
// includes the emission of its own frame (so α_t(s) β_t(s) counts y_t(z_s) twice). The
// posterior of position s at frame t is γ_t(s) = α_t(s) β_t(s) / (y_t(z_s) p), where
// p = Σ_s α_t(s) β_t(s) / y_t(z_s) at every frame t: the kernels divide by each frame's own
// sum rather than by exp(-nll), which cancels the rounding that α and β accumulate over a
// long sequence (the posteriors of a frame then sum to 1 to float precision), and
//
//   d nll / d log_probs[t, k] = -Σ_{s : z_s = k} γ_t(s).
//
// This is the true gradient with respect to log_probs, valid for any input. PyTorch's
// ctc_loss returns exp(log_probs) plus it, a form that gives the same gradient at the logits
// once it passes back through a log_softmax (its extra term sums to one per frame, which the
// log_softmax VJP removes); forge's tests compare at the logits.
//
// No path fits (T too short for the labels and their repeats) exactly when nll = +inf; the
// gradient kernel then writes zeros.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace forge::kernels {

// One sequence: `frames` rows of `classes` log-probabilities, row-major and contiguous.
struct CtcSequence {
    const float* log_probs;
    std::size_t frames;
    std::size_t classes;
    std::span<const std::int32_t> labels;  // l_1..l_S, each in [0, classes) and not blank
    std::int32_t blank;
};

// L = 2S + 1: the length of the blank-extended label sequence.
constexpr std::size_t ctc_extended_length(std::size_t labels) { return 2 * labels + 1; }

// Floats of scratch each kernel call needs: three rows of L (the emissions e_t of one frame,
// the skip mask, the posteriors γ_t of one frame).
constexpr std::size_t ctc_scratch_floats(std::size_t labels) { return 3 * ctc_extended_length(labels); }

namespace scalar {
// Fills log_alpha [frames, L] and returns nll (+inf when no path fits). frames >= 1.
float ctc_alpha(const CtcSequence& seq, std::span<float> log_alpha, std::span<float> scratch) noexcept;
// grad [frames, classes] = d nll / d log_probs, from the forward's log_alpha and nll; log_beta
// [frames, L] is filled as a by-product.
void ctc_gradient(const CtcSequence& seq, std::span<const float> log_alpha, float nll, std::span<float> log_beta,
                  std::span<float> scratch, std::span<float> grad) noexcept;
}  // namespace scalar

namespace simd {
float ctc_alpha(const CtcSequence& seq, std::span<float> log_alpha, std::span<float> scratch) noexcept;
void ctc_gradient(const CtcSequence& seq, std::span<const float> log_alpha, float nll, std::span<float> log_beta,
                  std::span<float> scratch, std::span<float> grad) noexcept;
}  // namespace simd

}  // namespace forge::kernels
