#include "core/ops/ctc.h"

#include "core/error.h"
#include "core/ops/check_f32.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/ctc.h"

#include <vector>

namespace forge {
namespace {

// The labels of every sequence as i32, checked against the class count and the blank.
std::vector<std::vector<std::int32_t>> checked_labels(const CtcTargets& targets, std::int64_t batch,
                                                      std::int64_t frames, std::int64_t classes) {
    const Tensor& labels = targets.labels;
    check(labels.defined() && (labels.dtype() == DType::I32 || labels.dtype() == DType::I64),
          "ctc_loss: labels must be an i32 or i64 tensor");
    check(labels.rank() == 2 && labels.size(0) == batch, "ctc_loss: labels must be [batch {}, max labels], got {}",
          batch, labels.shape().to_string());
    check(static_cast<std::int64_t>(targets.input_lengths.size()) == batch &&
              static_cast<std::int64_t>(targets.target_lengths.size()) == batch,
          "ctc_loss: {} input lengths and {} target lengths for a batch of {}", targets.input_lengths.size(),
          targets.target_lengths.size(), batch);
    check(targets.blank >= 0 && targets.blank < classes, "ctc_loss: blank {} is outside [0, {})", targets.blank,
          classes);
    const Tensor contiguous = labels.contiguous();
    const std::int64_t width = labels.size(1);
    std::vector<std::vector<std::int32_t>> out(static_cast<std::size_t>(batch));
    for (std::int64_t n = 0; n < batch; ++n) {
        const std::int64_t frames_n = targets.input_lengths[static_cast<std::size_t>(n)];
        const std::int64_t count = targets.target_lengths[static_cast<std::size_t>(n)];
        check(frames_n >= 1 && frames_n <= frames, "ctc_loss: input_lengths[{}] = {} is outside [1, {}]", n,
              frames_n, frames);
        check(count >= 0 && count <= width, "ctc_loss: target_lengths[{}] = {} is outside [0, {}]", n, count, width);
        for (std::int64_t j = 0; j < count; ++j) {
            const std::int64_t at = n * width + j;
            const std::int64_t label = contiguous.dtype() == DType::I64 ? contiguous.data<std::int64_t>()[at]
                                                                        : contiguous.data<std::int32_t>()[at];
            check(label >= 0 && label < classes && label != targets.blank,
                  "ctc_loss: label {} at [{}, {}] is the blank or outside [0, {})", label, n, j, classes);
            out[static_cast<std::size_t>(n)].push_back(static_cast<std::int32_t>(label));
        }
    }
    return out;
}

}  // namespace

std::int64_t ctc_min_frames(std::span<const std::int32_t> labels) {
    std::int64_t frames = static_cast<std::int64_t>(labels.size());
    for (std::size_t j = 1; j < labels.size(); ++j) frames += labels[j] == labels[j - 1] ? 1 : 0;
    return frames;
}

CtcResult ctc_forward_backward(const Tensor& log_probs_in, const CtcTargets& targets, bool want_grad) {
    check_f32(log_probs_in, "ctc_loss", "log_probs");
    check(log_probs_in.rank() == 3, "ctc_loss: log_probs must be [batch, frames, classes], got {}",
          log_probs_in.shape().to_string());
    const Tensor log_probs = log_probs_in.contiguous();
    const std::int64_t batch = log_probs.size(0), frames = log_probs.size(1), classes = log_probs.size(2);
    const auto labels = checked_labels(targets, batch, frames, classes);

    CtcResult result{Tensor::empty({batch}), want_grad ? Tensor::zeros({batch, frames, classes}) : Tensor{}};
    float* nll = result.nll.data<float>();
    ThreadPool::global().run(batch, [&](std::int64_t n) {
        const auto& seq_labels = labels[static_cast<std::size_t>(n)];
        const auto seq_frames = static_cast<std::size_t>(targets.input_lengths[static_cast<std::size_t>(n)]);
        const kernels::CtcSequence seq{log_probs.data<float>() + n * frames * classes, seq_frames,
                                       static_cast<std::size_t>(classes), seq_labels,
                                       static_cast<std::int32_t>(targets.blank)};
        const std::size_t length = kernels::ctc_extended_length(seq_labels.size());
        std::vector<float> alpha(seq_frames * length), scratch(kernels::ctc_scratch_floats(seq_labels.size()));
        nll[n] = kernels::active::ctc_alpha(seq, alpha, scratch);
        if (!want_grad) return;
        std::vector<float> beta(seq_frames * length);
        const std::span<float> grad{result.grad.data<float>() + n * frames * classes, seq_frames * seq.classes};
        kernels::active::ctc_gradient(seq, alpha, nll[n], beta, scratch, grad);
    });
    return result;
}

}  // namespace forge
