// Losses, each returning a rank-0 tensor.
#pragma once

#include "core/tensor.h"

#include <cstdint>

namespace forge::ag {

struct CrossEntropyOptions {
    std::int64_t ignore_index = -100;  // rows with this target add nothing (PyTorch's default)
    float label_smoothing = 0.0f;      // target distribution (1-s)·onehot + s/C
};

// Mean cross-entropy of logits [N, C] (or [..., C]) against integer targets [N] (or [...]),
// I32 or I64, over the rows whose target is not ignore_index (0 if every row is ignored).
// Fused: one log-softmax forward; the backward is softmax - target distribution, computed
// from the saved log-probabilities.
Tensor cross_entropy(const Tensor& logits, const Tensor& targets, const CrossEntropyOptions& options = {});

// mean((a - b)^2) over every element.
Tensor mse(const Tensor& a, const Tensor& b);

}  // namespace forge::ag
