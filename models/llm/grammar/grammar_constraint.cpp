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

std::vector<std::uint32_t> GrammarConstraint::state_key() const {
    std::vector<std::uint32_t> key{matcher_.complete() ? 1u : 0u};
    for (std::int32_t stack : matcher_.stacks()) {
        matcher_.append_positions(stack, key);
        key.push_back(~0u);  // between stacks
    }
    return key;
}

void GrammarConstraint::compute_allowed() {
    std::vector<std::uint32_t> key = state_key();
    if (allowed_valid_ && key == allowed_key_) return;
    allowed_key_ = std::move(key);
    allowed_valid_ = true;
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
    constexpr float kMasked = -std::numeric_limits<float>::infinity();
    for (std::size_t w = 0; w * 64 < n; ++w) {  // a word at a time: most are all-allowed or all-masked
        const std::uint64_t bits = allowed_[w];
        const std::size_t first = w * 64, last = std::min(n, first + 64);
        if (bits == ~std::uint64_t{0} && last - first == 64) continue;
        for (std::size_t i = first; i < last; ++i) {
            if (!((bits >> (i - first)) & 1)) logits[i] = kMasked;
        }
    }
    for (std::size_t i = n; i < logits.size(); ++i) logits[i] = kMasked;  // padded rows
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
