#include "models/gpt/evaluate.h"

#include "core/autograd/grad_mode.h"
#include "core/error.h"
#include "core/ops/reduce.h"
#include "core/ops/softmax.h"

#include <algorithm>
#include <cmath>

namespace forge::gpt {

double bits_per_byte(const GptModel& model, std::span<const std::int32_t> tokens,
                     std::span<const std::int32_t> token_bytes, std::int64_t seq_len, std::int64_t batch,
                     std::int64_t max_tokens) {
    ag::NoGradScope no_grad;
    const std::int64_t windows =
        std::min((static_cast<std::int64_t>(tokens.size()) - 1) / seq_len, std::max<std::int64_t>(1, max_tokens / seq_len));
    check(windows >= 1, "validation split: {} tokens make no window of {} + 1", tokens.size(), seq_len);
    double nats = 0.0;
    std::int64_t bytes = 0;
    for (std::int64_t first = 0; first < windows; first += batch) {
        const std::int64_t rows = std::min(batch, windows - first);
        Tensor ids = Tensor::empty({rows, seq_len}, DType::I32);
        auto* in = ids.data<std::int32_t>();
        for (std::int64_t r = 0; r < rows; ++r) {
            std::copy_n(tokens.data() + (first + r) * seq_len, seq_len, in + r * seq_len);
        }
        const Tensor logp = log_softmax(model.forward(ids)).contiguous();  // [rows, T, V]
        const float* lp = logp.data<float>();
        const std::int64_t vocab = logp.size(2);
        for (std::int64_t r = 0; r < rows; ++r) {
            for (std::int64_t t = 0; t < seq_len; ++t) {
                const std::int32_t target = tokens[static_cast<std::size_t>((first + r) * seq_len + t + 1)];
                const std::int32_t n = token_bytes[static_cast<std::size_t>(target)];
                if (n == 0) continue;
                nats -= lp[(r * seq_len + t) * vocab + target];
                bytes += n;
            }
        }
    }
    check(bytes > 0, "validation split has no text tokens");
    return nats / (std::log(2.0) * static_cast<double>(bytes));
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
