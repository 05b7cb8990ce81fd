// The differentiable CTC loss (forward-backward in core/ops/ctc.h, kernels/ctc.h).
#pragma once

#include "core/ops/ctc.h"
#include "core/tensor.h"

namespace forge::ag {

// How the per-sequence negative log-likelihoods become one number.
enum class CtcReduction {
    mean,  // PyTorch's 'mean': mean over the batch of nll_n / max(1, target_lengths[n])
    sum,   // PyTorch's 'sum': Σ_n nll_n
};

struct CtcLossOptions {
    CtcReduction reduction = CtcReduction::mean;
    // A sequence that no alignment fits has nll = +inf. With zero_infinity it adds 0 instead
    // (PyTorch's option of the same name). Its gradient is zero either way.
    bool zero_infinity = false;
};

// The CTC loss of log_probs [N, T, C] (log-probabilities, e.g. ag::log_softmax of logits;
// batch first) against `targets`, as a rank-0 tensor. The VJP scales the gradient the forward
// already computed: recording costs one backward recursion inside the forward.
Tensor ctc_loss(const Tensor& log_probs, const CtcTargets& targets, const CtcLossOptions& options = {});

}  // namespace forge::ag
