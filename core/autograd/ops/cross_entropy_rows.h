// The arithmetic of the cross-entropy over rows of log-probabilities, in one place for the two
// ops that run it: ag::cross_entropy (core/autograd/ops/loss.h), over all rows of given logits
// at once, and ag::frozen_linear_cross_entropy (core/autograd/ops/frozen_linear_cross_entropy.h),
// over chunks of rows whose logits it computes and drops in turn. Each function works row by
// row, so chunks give the bits of one whole pass.
#pragma once

#include "core/tensor.h"

#include <cstdint>
#include <span>
#include <vector>

namespace forge::ag {

// Throws unless the label smoothing s is in [0, 1].
void check_label_smoothing(float s);

// The targets as int64, one per row (`rows` of them), each checked to be ignore_index or a
// class in [0, classes).
std::vector<std::int64_t> cross_entropy_targets(const Tensor& targets, std::int64_t rows, std::int64_t classes,
                                                std::int64_t ignore_index);

// Subtracts each row's loss term, (1-s) log p[target] + s mean_j log p[j], from `total`, in row
// order, for log_probs [rows, classes] (rows whose target is ignore_index add nothing).
void subtract_log_likelihoods(const Tensor& log_probs, std::span<const std::int64_t> target, std::int64_t ignore,
                              float s, double& total);

// The mean loss from the sum subtract_log_likelihoods left in `total`: total / counted, 0 when
// no row counted.
float mean_loss(double total, std::int64_t counted);

// d loss / d logits = (softmax - q) · factor, q = (1-s)·onehot + s/C, zero on ignored rows,
// from log_probs [rows, classes] in one pass over each row into the one tensor it returns.
Tensor cross_entropy_logits_gradient(const Tensor& log_probs, std::span<const std::int64_t> target,
                                     std::int64_t ignore, float s, float factor);

}  // namespace forge::ag
