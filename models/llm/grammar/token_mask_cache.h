// What a parse position allows, computed once per (grammar, vocabulary) and shared by every
// request: the idea of XGrammar's "context-independent tokens" (Dong et al., 2024).
//
// A stack's top few frames (kContextFrames: enough to hold a JSON string's char loop and its
// closing quote) decide most tokens on their own: walking the vocabulary trie from those frames
// alone, a token either stays inside them (allowed, whatever lies below), fails inside them
// (rejected), or runs past their bottom with bytes left over (uncertain: it depends on the
// rules below). Only the uncertain ones are checked against the whole stack at each step. Inside
// a JSON string that leaves a few thousand tokens (those with a quote in them) of the 151k to
// check, instead of walking the whole trie.
#pragma once

#include "models/llm/grammar/grammar.h"
#include "models/llm/grammar/matcher.h"
#include "models/llm/grammar/vocabulary_index.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace forge::llm::grammar {

constexpr std::size_t kContextFrames = 3;
// Masks kept per (grammar, vocabulary): a mask is a bit per token (19 KB on the 151k Qwen3
// vocabulary), and a grammar whose positions never repeat (each level of `[a-z]{0,10000}` is
// its own) would keep one per token generated. Past this many, new masks are computed for
// their step and not kept: ~20 MB per grammar on that vocabulary.
constexpr std::size_t kMaxCachedMasks = 1024;

struct PositionMask {
    std::vector<std::uint64_t> allowed;   // bit per token: allowed whatever the frames below are
    std::vector<std::int32_t> uncertain;  // tokens that need the whole stack to decide
};

class TokenMaskCache {
public:
    explicit TokenMaskCache(std::shared_ptr<const VocabularyIndex> vocabulary) : vocabulary_(std::move(vocabulary)) {}

    // The mask for the stack whose top frames have `positions` (top first), computed with
    // `matcher`'s arena on first use.
    std::shared_ptr<const PositionMask> get(std::span<const std::uint32_t> positions, Matcher& matcher);

    // The cache of (grammar, vocabulary): one per pair, kept as long as the grammar lives.
    static std::shared_ptr<TokenMaskCache> of(const std::shared_ptr<const Grammar>& grammar,
                                              const std::shared_ptr<const VocabularyIndex>& vocabulary);

private:
    std::shared_ptr<const PositionMask> compute(std::span<const std::uint32_t> positions, Matcher& matcher) const;

    std::shared_ptr<const VocabularyIndex> vocabulary_;
    std::mutex mutex_;
    std::map<std::vector<std::uint32_t>, std::shared_ptr<const PositionMask>> masks_;
};

}  // namespace forge::llm::grammar
