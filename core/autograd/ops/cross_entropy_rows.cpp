#include "core/autograd/ops/cross_entropy_rows.h"

#include "core/error.h"
#include "core/ops/reduce.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/unary.h"

#include <algorithm>

namespace forge::ag {

void check_label_smoothing(float s) {
    check(s >= 0.0f && s <= 1.0f, "cross_entropy: label_smoothing must be in [0, 1], got {}", s);
}

std::vector<std::int64_t> cross_entropy_targets(const Tensor& targets, std::int64_t rows, std::int64_t classes,
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

void subtract_log_likelihoods(const Tensor& log_probs, std::span<const std::int64_t> target, std::int64_t ignore,
                              float s, double& total) {
    const std::int64_t rows = log_probs.size(0), classes = log_probs.size(1);
    // The row sums serve only the smoothing term (skipped without it: 0 · a finite sum adds 0).
    const Tensor row_sums = s > 0.0f ? forge::sum(log_probs, -1) : Tensor::zeros({rows});
    const float* lp = log_probs.data<float>();
    const float* rs = row_sums.data<float>();
    for (std::int64_t i = 0; i < rows; ++i) {
        const std::int64_t t = target[static_cast<std::size_t>(i)];
        if (t == ignore) continue;
        total -= (1.0 - s) * lp[i * classes + t] + s * rs[i] / static_cast<double>(classes);
    }
}

float mean_loss(double total, std::int64_t counted) {
    return counted == 0 ? 0.0f : static_cast<float>(total / static_cast<double>(counted));
}

// One pass over each row of the log-probabilities into the tensor returned (at a 151,936-token
// vocabulary a row of logits is 0.6 MB, and a training step's rows hold 150 MB of them).
Tensor cross_entropy_logits_gradient(const Tensor& log_probs, std::span<const std::int64_t> target,
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

}  // namespace forge::ag
