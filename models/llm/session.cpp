#include "models/llm/session.h"

#include "models/llm/speculator.h"

#include <algorithm>

namespace forge::llm {

Session::Session(const Model& model, const SessionOptions& options)
    : model_(model),
      n_batch_(std::max<std::int64_t>(1, std::min(options.n_batch, options.n_ctx))),
      // A sliding-window ring holds a pass of n_batch rows and any speculative draft's rollback.
      cache_(make_kv_cache(model, 1, options.n_ctx, options.kv_type, std::max(n_batch_, kMaxDraft + 1))),
      forward_(model, n_batch_, cache_),
      batch_(n_batch_),
      logits_(static_cast<std::size_t>(model.hparams().n_vocab)) {}

void Session::check_tokens(std::span<const std::int32_t> tokens) const {
    const std::int64_t n_vocab = model_.hparams().n_vocab;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        check(tokens[i] >= 0 && tokens[i] < n_vocab, "token id {} at position {} is out of range [0, {})", tokens[i], i,
              n_vocab);
    }
    const auto n = static_cast<std::int64_t>(tokens.size());
    check(n_past() + n <= n_ctx(), "the context is full: {} tokens already in it + {} new > --ctx {}", n_past(), n,
          n_ctx());
}

std::span<const float> Session::eval(std::span<const std::int32_t> tokens, std::span<float> all_logits) {
    const auto n_vocab = static_cast<std::size_t>(model_.hparams().n_vocab);
    check(!tokens.empty(), "eval: no tokens");
    check(all_logits.empty() || all_logits.size() == tokens.size() * n_vocab,
          "eval: {} logits do not hold {} rows of {}", all_logits.size(), tokens.size(), n_vocab);
    check_tokens(tokens);
    for (std::size_t start = 0; start < tokens.size(); start += static_cast<std::size_t>(n_batch_)) {
        const auto chunk = tokens.subspan(start, std::min(static_cast<std::size_t>(n_batch_), tokens.size() - start));
        const bool last_chunk = start + chunk.size() == tokens.size();
        batch_.clear();
        for (std::size_t i = 0; i < chunk.size(); ++i) {
            const bool wants = !all_logits.empty() || (last_chunk && i + 1 == chunk.size());
            batch_.add({chunk[i], n_past() + static_cast<std::int64_t>(i), 0, wants});
        }
        std::span<float> out;
        if (!all_logits.empty()) {
            out = all_logits.subspan(start * n_vocab, chunk.size() * n_vocab);
        } else if (last_chunk) {
            out = logits_;
        }
        forward_.run(batch_.rows(), cache_, out);
    }
    if (!all_logits.empty()) {
        const auto last = all_logits.last(n_vocab);
        std::copy(last.begin(), last.end(), logits_.begin());
    }
    return logits_;
}

}  // namespace forge::llm
