#include "models/llm/generation_state.h"

#include "core/error.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace forge::llm {

const char* finish_reason_name(FinishReason reason) {
    switch (reason) {
        case FinishReason::EndOfGeneration:
        case FinishReason::StopString: return "stop";
        case FinishReason::MaxTokens:
        case FinishReason::ContextFull: return "length";
        case FinishReason::Cancelled: return "cancelled";
    }
    return "stop";
}

GenerationState::GenerationState(const Tokenizer& tokenizer, const GenerationOptions& options, Sampler& sampler)
    : tokenizer_(tokenizer), max_tokens_(options.max_tokens), sampler_(sampler), constraint_(options.constraint),
      logit_bias_(options.logit_bias), logprob_sink_(options.logprob_sink), top_logprobs_(options.top_logprobs),
      decoder_(tokenizer), stops_(options.stop) {
    for (const auto& [id, bias] : logit_bias_)
        check(id >= 0 && id < tokenizer.n_vocab(), "logit_bias: token {} is not in the vocabulary of {}", id, tokenizer.n_vocab());
    check(top_logprobs_ >= 0 && top_logprobs_ <= tokenizer.n_vocab(), "top_logprobs must be 0 to the vocabulary size, got {}",
          top_logprobs_);
    // Reserve for what a context can hold at most, not for an untrusted limit (-n 2^40).
    if (max_tokens_ >= 0) tokens_.reserve(static_cast<std::size_t>(std::min<std::int64_t>(max_tokens_, 1 << 16)));
}

std::optional<std::int32_t> GenerationState::next(std::span<const float> logits, std::string& piece, const DraftGuess* guess) {
    piece.clear();
    if (finished()) return std::nullopt;
    if (max_tokens_ >= 0 && generated_ >= max_tokens_) {
        end(FinishReason::MaxTokens, piece);
        return std::nullopt;
    }
    const std::span<const float> seen = adjusted(logits);
    const std::int32_t id = guess ? sampler_.sample_against(seen, guess->id, guess->distribution) : sampler_.sample(seen);
    if (tokenizer_.is_end_of_generation(id)) {
        end(FinishReason::EndOfGeneration, piece);
        return std::nullopt;
    }
    if (logprob_sink_) report_logprob(seen, id);
    if (constraint_) constraint_->accept(id);
    sampler_.accept(id);
    tokens_.push_back(id);
    ++generated_;
    piece = stops_.push(decoder_.push(id));
    if (stops_.stopped()) {
        finish_ = FinishReason::StopString;
        return std::nullopt;
    }
    return id;
}

std::span<const float> GenerationState::adjusted(std::span<const float> logits) {
    if (!constraint_ && logit_bias_.empty()) return logits;
    adjusted_.assign(logits.begin(), logits.end());  // sized once: the vocabulary does not change
    for (const auto& [id, bias] : logit_bias_) adjusted_[static_cast<std::size_t>(id)] += bias;
    if (constraint_) constraint_->mask(adjusted_);
    return adjusted_;
}

// log p(id) = logit - max - log(sum exp(logit - max)), summed in double; then the
// top_logprobs most likely tokens (ties: the lower id first, as greedy sampling picks).
void GenerationState::report_logprob(std::span<const float> logits, std::int32_t id) {
    const float max_logit = *std::max_element(logits.begin(), logits.end());
    double sum = 0.0;
    for (const float l : logits) sum += std::exp(static_cast<double>(l - max_logit));
    const double log_sum = std::log(sum);
    const auto logprob = [&](std::int32_t t) {
        return static_cast<float>(static_cast<double>(logits[static_cast<std::size_t>(t)] - max_logit) - log_sum);
    };
    logprob_.id = id;
    logprob_.logprob = logprob(id);
    logprob_.top.clear();
    if (top_logprobs_ > 0) {
        order_.resize(logits.size());
        std::iota(order_.begin(), order_.end(), 0);
        const auto n = std::min<std::size_t>(static_cast<std::size_t>(top_logprobs_), order_.size());
        std::partial_sort(order_.begin(), order_.begin() + static_cast<std::ptrdiff_t>(n), order_.end(),
                          [&](std::int32_t a, std::int32_t b) {
                              const float la = logits[static_cast<std::size_t>(a)], lb = logits[static_cast<std::size_t>(b)];
                              return la > lb || (la == lb && a < b);
                          });
        for (std::size_t i = 0; i < n; ++i) logprob_.top.emplace_back(order_[i], logprob(order_[i]));
    }
    logprob_sink_(logprob_);
}

void GenerationState::finish(FinishReason reason, std::string& piece) {
    piece.clear();
    if (!finished()) end(reason, piece);
}

void GenerationState::end(FinishReason reason, std::string& piece) {
    finish_ = reason;
    piece += stops_.push(decoder_.flush());
    if (!stops_.stopped()) piece += stops_.flush();
    else finish_ = FinishReason::StopString;
}

}  // namespace forge::llm
