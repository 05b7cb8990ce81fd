#include "core/autograd/ops/loss.h"

#include "core/autograd/ops/cross_entropy_rows.h"
#include "core/autograd/ops/pointwise.h"
#include "core/autograd/ops/reduce.h"
#include "core/autograd/variable.h"
#include "core/error.h"
#include "core/ops/softmax.h"

#include <algorithm>
#include <vector>

namespace forge::ag {

Tensor cross_entropy(const Tensor& logits, const Tensor& targets, const CrossEntropyOptions& options) {
    const std::int64_t classes = logits.size(-1);
    const std::int64_t rows = logits.numel() / classes;
    const float s = options.label_smoothing;
    check_label_smoothing(s);
    const auto target = cross_entropy_targets(targets, rows, classes, options.ignore_index);
    const auto counted = static_cast<std::int64_t>(rows - std::count(target.begin(), target.end(), options.ignore_index));

    const Tensor log_probs = forge::log_softmax(logits.reshape(Shape{rows, classes}));
    double total = 0.0;
    subtract_log_likelihoods(log_probs, target, options.ignore_index, s, total);
    Tensor result = Tensor::full(Shape{}, mean_loss(total, counted));
    if (!any_requires_grad({&logits})) return result;

    return record("cross_entropy", result, {&logits, &targets},
                  [log_probs, target, counted, s, shape = logits.shape(),
                   ignore = options.ignore_index](const Tensor& g, InputMask) {
                      const float factor = counted == 0 ? 0.0f : g.item() / static_cast<float>(counted);
                      return std::vector<Tensor>{
                          cross_entropy_logits_gradient(log_probs, target, ignore, s, factor).reshape(shape), Tensor{}};
                  });
}

Tensor mse(const Tensor& a, const Tensor& b) {
    const Tensor diff = ag::sub(a, b);
    return ag::mean_all(ag::mul(diff, diff));
}

}  // namespace forge::ag
