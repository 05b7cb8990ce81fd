#include "core/autograd/ops/ctc.h"

#include "core/autograd/variable.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace forge::ag {
namespace {

// The factor of each sequence's nll in the reduced loss.
std::vector<float> sequence_weights(const CtcTargets& targets, CtcReduction reduction) {
    const std::size_t batch = targets.target_lengths.size();
    std::vector<float> weights(batch, 1.0f);
    if (reduction == CtcReduction::sum) return weights;
    for (std::size_t n = 0; n < batch; ++n) {
        const auto labels = std::max<std::int64_t>(1, targets.target_lengths[n]);
        weights[n] = 1.0f / (static_cast<float>(labels) * static_cast<float>(batch));
    }
    return weights;
}

}  // namespace

Tensor ctc_loss(const Tensor& log_probs, const CtcTargets& targets, const CtcLossOptions& options) {
    const bool recording = any_requires_grad({&log_probs});
    CtcResult ctc = ctc_forward_backward(log_probs, targets, recording);
    const std::vector<float> weights = sequence_weights(targets, options.reduction);
    float* nll = ctc.nll.data<float>();
    double total = 0.0;
    for (std::size_t n = 0; n < weights.size(); ++n) {
        if (options.zero_infinity && std::isinf(nll[n])) nll[n] = 0.0f;
        total += static_cast<double>(weights[n]) * nll[n];
    }
    Tensor result = Tensor::full(Shape{}, static_cast<float>(total));
    if (!recording) return result;

    return record("ctc_loss", result, {&log_probs},
                  [grad = ctc.grad, weights](const Tensor& g, InputMask) {
                      // d loss / d log_probs[n] = g · weight_n · d nll_n / d log_probs[n]
                      Tensor d = grad.clone();
                      const std::int64_t per_sequence = d.numel() / d.size(0);
                      float* dd = d.data<float>();
                      const float upstream = g.item();
                      for (std::size_t n = 0; n < weights.size(); ++n) {
                          const float factor = upstream * weights[n];
                          float* row = dd + static_cast<std::int64_t>(n) * per_sequence;
                          std::transform(row, row + per_sequence, row, [factor](float v) { return v * factor; });
                      }
                      return std::vector<Tensor>{d};
                  });
}

}  // namespace forge::ag
