// A TokenConstraint (models/llm/token_constraint.h) that keeps a generation inside a Grammar.
//
// Each step, for every stack of the parse state, it takes the tokens its top frames allow from
// the shared TokenMaskCache (token_mask_cache.h: a walk of the vocabulary trie, done once per
// position) and checks the few uncertain tokens against the whole stack, so only tokens whose
// bytes the grammar can take stay allowed. End-of-generation tokens are allowed only where the
// text is a whole sentence (and are the only choice once nothing else may follow). How serve
// uses it:
//
//   // once per model:   auto vocab = std::make_shared<const grammar::VocabularyIndex>(tokenizer);
//   // once per schema:  std::shared_ptr<const grammar::Grammar> g = compile_response_format(json);
//   // per request:      options.constraint = std::make_shared<grammar::GrammarConstraint>(g, vocab);
#pragma once

#include "models/llm/grammar/grammar.h"
#include "models/llm/grammar/matcher.h"
#include "models/llm/grammar/token_mask_cache.h"
#include "models/llm/grammar/vocabulary_index.h"
#include "models/llm/token_constraint.h"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace forge::llm::grammar {

class GrammarConstraint : public TokenConstraint {
public:
    GrammarConstraint(std::shared_ptr<const Grammar> grammar, std::shared_ptr<const VocabularyIndex> vocabulary);

    void mask(std::span<float> logits) override;
    // Throws forge::Error if the grammar cannot take the token (the sampler ignored the mask).
    void accept(std::int32_t token) override;

    // The tokens allowed next (sorted), as mask() would leave them.
    std::vector<std::int32_t> allowed_tokens();
    // The text so far is a whole sentence of the grammar.
    bool complete() const { return matcher_.complete(); }

private:
    void compute_allowed();  // fills allowed_ for the current state

    std::vector<std::uint32_t> state_key() const;  // every stack's positions: equal keys, equal masks

    bool is_allowed(std::int32_t token) const { return (allowed_[token >> 6] >> (token & 63)) & 1; }
    void allow(std::int32_t token) { allowed_[token >> 6] |= std::uint64_t{1} << (token & 63); }

    std::shared_ptr<const VocabularyIndex> vocabulary_;
    Matcher matcher_;
    std::shared_ptr<TokenMaskCache> cache_;
    std::vector<std::uint64_t> allowed_;  // bit per token, for the current state
    // The state allowed_ was computed for: inside a JSON string every token leads back to the
    // same state, so most steps reuse the last mask as it is.
    std::vector<std::uint32_t> allowed_key_;
    bool allowed_valid_ = false;
};

}  // namespace forge::llm::grammar
