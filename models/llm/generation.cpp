#include "models/llm/generation.h"

#include <algorithm>

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

Generation::Generation(const Tokenizer& tokenizer, const GenerationOptions& options, Sampler& sampler)
    : tokenizer_(tokenizer), max_tokens_(options.max_tokens), sampler_(sampler), constraint_(options.constraint), decoder_(tokenizer),
      stops_(options.stop) {
    // Reserve for what a context can hold at most, not for an untrusted limit (-n 2^40).
    if (max_tokens_ >= 0) tokens_.reserve(static_cast<std::size_t>(std::min<std::int64_t>(max_tokens_, 1 << 16)));
}

std::optional<std::int32_t> Generation::next(std::span<const float> logits, std::string& piece) {
    piece.clear();
    if (finished()) return std::nullopt;
    if (max_tokens_ >= 0 && generated_ >= max_tokens_) {
        end(FinishReason::MaxTokens, piece);
        return std::nullopt;
    }
    const std::int32_t id = sampler_.sample(constrained(logits));
    if (tokenizer_.is_end_of_generation(id)) {
        end(FinishReason::EndOfGeneration, piece);
        return std::nullopt;
    }
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

std::span<const float> Generation::constrained(std::span<const float> logits) {
    if (!constraint_) return logits;
    masked_.assign(logits.begin(), logits.end());  // sized once: the vocabulary does not change
    constraint_->mask(masked_);
    return masked_;
}

void Generation::finish(FinishReason reason, std::string& piece) {
    piece.clear();
    if (!finished()) end(reason, piece);
}

void Generation::end(FinishReason reason, std::string& piece) {
    finish_ = reason;
    piece += stops_.push(decoder_.flush());
    if (!stops_.stopped()) piece += stops_.flush();
    else finish_ = FinishReason::StopString;
}

}  // namespace forge::llm
