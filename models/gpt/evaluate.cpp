#include "models/gpt/evaluate.h"

#include "core/autograd/grad_mode.h"
#include "core/error.h"
#include "core/ops/reduce.h"
#include "core/ops/softmax.h"
#include "models/gpt/trainer.h"

#include <algorithm>
#include <cmath>

namespace forge::gpt {

HeldOutScore score_rows(const GptModel& model, const Tensor& inputs, const Tensor& targets,
                        std::span<const std::int32_t> token_bytes, std::int64_t batch) {
    ag::NoGradScope no_grad;
    const std::int64_t n_rows = inputs.size(0), seq_len = inputs.size(1);
    const std::int32_t* target = targets.data<std::int32_t>();
    double nats = 0.0, text_nats = 0.0;
    std::int64_t bytes = 0;
    HeldOutScore score;
    for (std::int64_t first = 0; first < n_rows; first += batch) {
        const std::int64_t rows = std::min(batch, n_rows - first);
        const Tensor logp = log_softmax(model.forward(inputs.narrow(0, first, rows).contiguous())).contiguous();
        const float* lp = logp.data<float>();
        const std::int64_t vocab = logp.size(2);
        for (std::int64_t i = 0; i < rows * seq_len; ++i) {
            const std::int32_t t = target[first * seq_len + i];
            if (t == kNoTarget) continue;
            const double nll = -lp[i * vocab + t];
            nats += nll;
            ++score.targets;
            const std::int32_t n = token_bytes[static_cast<std::size_t>(t)];
            if (n == 0) continue;
            text_nats += nll;
            bytes += n;
        }
    }
    check(bytes > 0, "validation split has no text tokens");
    score.loss = nats / static_cast<double>(score.targets);
    score.bits_per_byte = text_nats / (std::log(2.0) * static_cast<double>(bytes));
    return score;
}

double bits_per_byte(const GptModel& model, std::span<const std::int32_t> tokens,
                     std::span<const std::int32_t> token_bytes, std::int64_t seq_len, std::int64_t batch,
                     std::int64_t max_tokens) {
    const std::int64_t windows =
        std::min((static_cast<std::int64_t>(tokens.size()) - 1) / seq_len, std::max<std::int64_t>(1, max_tokens / seq_len));
    check(windows >= 1, "validation split: {} tokens make no window of {} + 1", tokens.size(), seq_len);
    Tensor inputs = Tensor::empty({windows, seq_len}, DType::I32), targets = Tensor::empty({windows, seq_len}, DType::I32);
    for (std::int64_t w = 0; w < windows; ++w) {
        const std::int32_t* window = tokens.data() + w * seq_len;
        std::copy_n(window, seq_len, inputs.data<std::int32_t>() + w * seq_len);
        std::copy_n(window + 1, seq_len, targets.data<std::int32_t>() + w * seq_len);
    }
    return score_rows(model, inputs, targets, token_bytes, batch).bits_per_byte;
}

std::vector<std::int32_t> greedy_continuation(const GptModel& model, std::vector<std::int32_t> prompt, int count) {
    ag::NoGradScope no_grad;
    std::vector<std::int32_t> out;
    for (int i = 0; i < count; ++i) {
        const auto context = static_cast<std::int64_t>(prompt.size());
        const std::int64_t seen = std::min(context, model.config().context);
        const Tensor ids = Tensor::from(std::span<const std::int32_t>(prompt.data() + context - seen,
                                                                      static_cast<std::size_t>(seen)),
                                        Shape{1, seen});
        const Tensor last = model.forward(ids).narrow(1, seen - 1, 1).reshape(Shape{model.config().vocab});
        const auto next = static_cast<std::int32_t>(argmax(last, 0).data<std::int64_t>()[0]);
        out.push_back(next);
        prompt.push_back(next);
    }
    return out;
}

}  // namespace forge::gpt
