#include "core/autograd/ops/frozen_linear_cross_entropy.h"

#include "core/autograd/ops/cross_entropy_rows.h"
#include "core/autograd/ops/frozen_linear.h"
#include "core/autograd/variable.h"
#include "core/error.h"
#include "core/ops/binary.h"
#include "core/ops/softmax.h"

#include <algorithm>
#include <vector>

namespace forge::ag {
namespace {

// Rows `rows` of x [.., n_in] (contiguous) as one contiguous [rows.size(), n_in] tensor.
Tensor gather_rows(const Tensor& x, std::span<const std::int64_t> rows) {
    const std::int64_t n_in = x.size(1);
    Tensor out = Tensor::empty(Shape{static_cast<std::int64_t>(rows.size()), n_in});
    for (std::size_t i = 0; i < rows.size(); ++i)
        std::copy_n(x.data<float>() + rows[i] * n_in, n_in, out.data<float>() + static_cast<std::int64_t>(i) * n_in);
    return out;
}

// The rows of each chunk: at most `cap` (0: as many as kLossChunkBytes holds), all of one size
// but the last, which is at most `chunks` rows shorter (rather than a short straggler: a
// one-row product would take the GEMM's matrix-vector path, which rounds otherwise).
std::int64_t rows_per_chunk(std::int64_t counted, std::int64_t classes, std::int64_t cap) {
    if (cap <= 0)
        cap = std::max<std::int64_t>(
            1, static_cast<std::int64_t>(kLossChunkBytes / sizeof(float)) / std::max<std::int64_t>(classes, 1));
    const std::int64_t chunks = (counted + cap - 1) / cap;
    return chunks == 0 ? 1 : (counted + chunks - 1) / chunks;
}

}  // namespace

Tensor frozen_linear_cross_entropy(const Tensor& x, const infer::Linear& head, const Tensor& targets,
                                   const CrossEntropyOptions& options, const LogitsObserver& observe,
                                   std::int64_t chunk_rows) {
    const std::int64_t n_in = head.n_in(), classes = head.n_out();
    check(x.dtype() == DType::F32 && x.rank() >= 1 && x.size(x.rank() - 1) == n_in,
          "frozen_linear_cross_entropy: want f32 x [..., {}], got {} {}", n_in, dtype_name(x.dtype()),
          x.shape().to_string());
    const float s = options.label_smoothing;
    check_label_smoothing(s);
    const std::int64_t rows = x.numel() / std::max<std::int64_t>(n_in, 1);
    const auto target = cross_entropy_targets(targets, rows, classes, options.ignore_index);
    std::vector<std::int64_t> counted_rows;
    for (std::int64_t i = 0; i < rows; ++i)
        if (target[static_cast<std::size_t>(i)] != options.ignore_index) counted_rows.push_back(i);
    const auto counted = static_cast<std::int64_t>(counted_rows.size());

    const bool with_grad = any_requires_grad({&x});
    const Tensor flat = detach(x).contiguous().reshape(Shape{rows, n_in});
    // The gradient for an incoming gradient of 1 (cross_entropy's factor g / counted at g = 1).
    const float factor = counted == 0 ? 0.0f : 1.0f / static_cast<float>(counted);
    Tensor dx = with_grad ? Tensor::zeros({rows, n_in}) : Tensor{};
    double total = 0.0;
    const std::int64_t per_chunk = rows_per_chunk(counted, classes, chunk_rows);
    for (std::int64_t first = 0; first < counted; first += per_chunk) {
        const auto chunk = std::span<const std::int64_t>(counted_rows)
                               .subspan(static_cast<std::size_t>(first),
                                        static_cast<std::size_t>(std::min(per_chunk, counted - first)));
        std::vector<std::int64_t> chunk_target;
        for (const std::int64_t row : chunk) chunk_target.push_back(target[static_cast<std::size_t>(row)]);
        const Tensor log_probs = [&] {  // the logits' memory is free again for d logits
            const Tensor logits = frozen_linear(gather_rows(flat, chunk), head);
            if (observe) observe(chunk, logits);
            return forge::log_softmax(logits);
        }();
        subtract_log_likelihoods(log_probs, chunk_target, options.ignore_index, s, total);
        if (!with_grad) continue;
        const Tensor d_logits =
            cross_entropy_logits_gradient(log_probs, chunk_target, options.ignore_index, s, factor);
        const Tensor d_chunk = frozen_linear_input_gradient(head, d_logits);
        for (std::size_t i = 0; i < chunk.size(); ++i)
            std::copy_n(d_chunk.data<float>() + static_cast<std::int64_t>(i) * n_in, n_in,
                        dx.data<float>() + chunk[i] * n_in);
    }
    Tensor result = Tensor::full(Shape{}, mean_loss(total, counted));
    if (!with_grad) return result;
    return record("frozen_linear_cross_entropy", result, {&x, &targets},
                  [dx, shape = x.shape()](const Tensor& g, InputMask) {
                      return std::vector<Tensor>{(dx * g.item()).reshape(shape), Tensor{}};
                  });
}

}  // namespace forge::ag
