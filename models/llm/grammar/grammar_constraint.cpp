#include "models/llm/grammar/grammar_constraint.h"

#include "core/error.h"

#include <algorithm>
#include <array>
#include <limits>

namespace forge::llm::grammar {

GrammarConstraint::GrammarConstraint(std::shared_ptr<const Grammar> grammar, std::shared_ptr<const VocabularyIndex> vocabulary)
    : vocabulary_(std::move(vocabulary)), matcher_(grammar) {
    check(vocabulary_ != nullptr, "GrammarConstraint: no vocabulary index");
    cache_ = TokenMaskCache::of(grammar, vocabulary_);
    allowed_.assign((static_cast<std::size_t>(vocabulary_->n_vocab()) + 63) / 64, 0);
}

void GrammarConstraint::compute_allowed() {
    std::fill(allowed_.begin(), allowed_.end(), 0);
    std::array<std::uint32_t, kContextFrames> top{};
    // Copied: checking uncertain tokens uses the matcher's scratch space.
    const std::vector<std::int32_t> stacks(matcher_.stacks().begin(), matcher_.stacks().end());
    for (std::int32_t stack : stacks) {
        const std::size_t n = matcher_.top_positions(stack, top);
        const auto known = cache_->get(std::span(top).first(n), matcher_);
        for (std::size_t w = 0; w < allowed_.size(); ++w) allowed_[w] |= known->allowed[w];
        for (std::int32_t token : known->uncertain) {
            if (!is_allowed(token) && matcher_.stack_allows(stack, vocabulary_->piece(token))) allow(token);
        }
    }
    const bool any = std::any_of(allowed_.begin(), allowed_.end(), [](std::uint64_t w) { return w != 0; });
    if (matcher_.complete() || !any) {
        for (std::int32_t token : vocabulary_->end_of_generation()) allow(token);
    }
}

void GrammarConstraint::mask(std::span<float> logits) {
    compute_allowed();
    const std::size_t n = std::min(logits.size(), static_cast<std::size_t>(vocabulary_->n_vocab()));
    for (std::size_t i = 0; i < n; ++i) {
        if (!is_allowed(static_cast<std::int32_t>(i))) logits[i] = -std::numeric_limits<float>::infinity();
    }
    for (std::size_t i = n; i < logits.size(); ++i) logits[i] = -std::numeric_limits<float>::infinity();  // padded rows
}

std::vector<std::int32_t> GrammarConstraint::allowed_tokens() {
    compute_allowed();
    std::vector<std::int32_t> tokens;
    for (std::int32_t i = 0; i < vocabulary_->n_vocab(); ++i) {
        if (is_allowed(i)) tokens.push_back(i);
    }
    return tokens;
}

void GrammarConstraint::accept(std::int32_t token) {
    check(token >= 0 && token < vocabulary_->n_vocab(), "grammar: token {} is outside the vocabulary", token);
    const std::string& piece = vocabulary_->piece(token);
    check(!piece.empty() && matcher_.accept(piece), "grammar: token {} (\"{}\") does not fit the grammar here", token, piece);
}

}  // namespace forge::llm::grammar
