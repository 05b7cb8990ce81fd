#include "core/autograd/ops/loss.h"

#include "core/autograd/ops/pointwise.h"
#include "core/autograd/ops/reduce.h"
#include "core/autograd/variable.h"
#include "core/error.h"
#include "core/ops/reduce.h"
#include "core/ops/softmax.h"
#include "core/thread_pool.h"
#include "kernels/unary.h"
#include "kernels/backend.h"

#include <vector>

namespace forge::ag {
namespace {

// The targets as int64, one per row, checked against the class count.
std::vector<std::int64_t> target_rows(const Tensor& targets, std::int64_t rows, std::int64_t classes,
                                      std::int64_t ignore_index) {
    check(targets.dtype() == DType::I64 || targets.dtype() == DType::I32,
          "cross_entropy: targets must be i32 or i64, got {}", dtype_name(targets.dtype()));
    check(targets.numel() == rows, "cross_entropy: {} targets for {} rows of logits", targets.numel(), rows);
    const Tensor t = targets.contiguous();
    std::vector<std::int64_t> out(static_cast<std::size_t>(rows));
    for (std::int64_t i = 0; i < rows; ++i) {
        out[static_cast<std::size_t>(i)] =
            t.dtype() == DType::I64 ? t.data<std::int64_t>()[i] : t.data<std::int32_t>()[i];
        const std::int64_t v = out[static_cast<std::size_t>(i)];
        check(v == ignore_index || (v >= 0 && v < classes), "cross_entropy: target {} at row {} is outside [0, {})",
              v, i, classes);
    }
    return out;
}

// d loss / d logits = (softmax - q) · factor, q = (1-s)·onehot + s/C, zero on ignored rows: one
// pass over each row of the log-probabilities into the one tensor it returns (at a 151,936-token
// vocabulary a row of logits is 0.6 MB, and a training step's rows hold 150 MB of them).
Tensor smoothed_softmax_gradient(const Tensor& log_probs, const std::vector<std::int64_t>& target,
                                 std::int64_t ignore, float s, float factor) {
    const std::int64_t rows = log_probs.size(0), classes = log_probs.size(1);
    const float uniform = s / static_cast<float>(classes);
    Tensor d = Tensor::empty(log_probs.shape());
    const float* lp = log_probs.data<float>();
    float* dd = d.data<float>();
    ThreadPool::global().parallel_for(rows, 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
            float* row = dd + i * classes;
            const std::int64_t t = target[static_cast<std::size_t>(i)];
            if (t == ignore) {
                std::fill(row, row + classes, 0.0f * factor);
                continue;
            }
            const auto n = static_cast<std::size_t>(classes);
            kernels::active::unary(kernels::UnaryOp::Exp, {lp + i * classes, n}, {row, n});  // forge::exp's kernel
            const float at_target = (row[t] - uniform) - (1.0f - s);
            for (std::int64_t j = 0; j < classes; ++j) row[j] = (row[j] - uniform) * factor;
            row[t] = at_target * factor;
        }
    });
    return d;
}

}  // namespace

Tensor cross_entropy(const Tensor& logits, const Tensor& targets, const CrossEntropyOptions& options) {
    const std::int64_t classes = logits.size(-1);
    const std::int64_t rows = logits.numel() / classes;
    const float s = options.label_smoothing;
    check(s >= 0.0f && s <= 1.0f, "cross_entropy: label_smoothing must be in [0, 1], got {}", s);
    const auto target = target_rows(targets, rows, classes, options.ignore_index);

    const Tensor log_probs = forge::log_softmax(logits.reshape(Shape{rows, classes}));
    // The row sums serve only the smoothing term (skipped without it: 0 · a finite sum adds 0).
    const Tensor row_sums = s > 0.0f ? forge::sum(log_probs, -1) : Tensor::zeros({rows});
    const float* lp = log_probs.data<float>();
    const float* rs = row_sums.data<float>();
    double total = 0.0;
    std::int64_t counted = 0;
    for (std::int64_t i = 0; i < rows; ++i) {
        const std::int64_t t = target[static_cast<std::size_t>(i)];
        if (t == options.ignore_index) continue;
        total -= (1.0 - s) * lp[i * classes + t] + s * rs[i] / static_cast<double>(classes);
        ++counted;
    }
    const float loss = counted == 0 ? 0.0f : static_cast<float>(total / static_cast<double>(counted));
    Tensor result = Tensor::full(Shape{}, loss);
    if (!any_requires_grad({&logits})) return result;

    return record("cross_entropy", result, {&logits, &targets},
                  [log_probs, target, counted, s, classes, rows, shape = logits.shape(),
                   ignore = options.ignore_index](const Tensor& g, InputMask) {
                      const float factor = counted == 0 ? 0.0f : g.item() / static_cast<float>(counted);
                      return std::vector<Tensor>{
                          smoothed_softmax_gradient(log_probs, target, ignore, s, factor).reshape(shape), Tensor{}};
                  });
}

Tensor mse(const Tensor& a, const Tensor& b) {
    const Tensor diff = ag::sub(a, b);
    return ag::mean_all(ag::mul(diff, diff));
}

}  // namespace forge::ag
