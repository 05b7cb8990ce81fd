// The CTC loss of a batch of sequences (kernels/ctc.h has the recursions and their source).
//
// log_probs is [N, T, C] f32, batch first (PyTorch's ctc_loss takes [T, N, C]): the frames of
// each sequence are contiguous, which is how an encoder's output comes. Sequence n uses its
// first input_lengths[n] frames and the first target_lengths[n] labels of row n of `labels`
// ([N, S] i32 or i64, padded past the length with anything). Frames past a sequence's length
// get a zero gradient. Sequences run in parallel; each is computed on one thread, so results
// do not depend on the thread count.
#pragma once

#include "core/tensor.h"

#include <cstdint>
#include <span>
#include <vector>

namespace forge {

struct CtcTargets {
    Tensor labels;                             // [N, S] i32 or i64
    std::vector<std::int64_t> input_lengths;   // N frame counts, 1 <= length <= T
    std::vector<std::int64_t> target_lengths;  // N label counts, 0 <= length <= S
    std::int64_t blank = 0;                    // the blank class, in [0, C)
};

struct CtcResult {
    Tensor nll;   // [N]: -log p(labels_n | x_n), +inf where no alignment fits
    Tensor grad;  // [N, T, C]: d nll_n / d log_probs (only when asked for)
};

// The fewest frames any alignment of `labels` needs: one per label, plus a blank between each
// pair of equal neighbours. The loss is +inf exactly when a sequence has fewer frames; a
// training set should drop such utterances (or use a coarser vocabulary) rather than zero them.
std::int64_t ctc_min_frames(std::span<const std::int32_t> labels);

// Checks every length and label (errors name the sequence and the field) and runs the
// forward recursion, and with want_grad the backward one too.
CtcResult ctc_forward_backward(const Tensor& log_probs, const CtcTargets& targets, bool want_grad);

}  // namespace forge
