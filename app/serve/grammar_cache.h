// Compiled grammars by the request text that produced them (a response_format, or tools +
// tool_choice + parallel_tool_calls): a client that sends the same schema again gets the same
// Grammar object, and with it the token masks already computed for it (the TokenMaskCache of
// models/llm/grammar is kept per grammar), so only the first such request pays for them.
//
// Bounded by bytes, not only by count: a 600-byte request can compile to a grammar of tens of
// megabytes (models/llm/grammar/grammar_limits.h), and 64 of those took 2.4 GB. The least
// recently used grammars go once those held (their Grammar::memory_bytes and keys) pass
// `max_bytes`, or once more than `max_grammars` are held; a grammar larger than `max_bytes`
// alone serves its request and is not kept.
#pragma once

#include "models/llm/grammar/grammar.h"

#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>

namespace forge::app::serve {

class GrammarCache {
public:
    using GrammarPtr = std::shared_ptr<const llm::grammar::Grammar>;
    static constexpr std::size_t kDefaultMaxBytes = std::size_t{128} << 20;
    static constexpr std::size_t kDefaultMaxGrammars = 64;

    explicit GrammarCache(std::size_t max_bytes = kDefaultMaxBytes, std::size_t max_grammars = kDefaultMaxGrammars)
        : max_bytes_(max_bytes), max_grammars_(max_grammars) {}

    // The grammar cached under `key`, else compile() (outside the lock; an exception passes
    // through and nothing is cached).
    GrammarPtr get(const std::string& key, const std::function<GrammarPtr()>& compile);
    std::size_t size() const;
    std::size_t bytes() const;  // what the held grammars and their keys take

private:
    struct Entry {
        std::string key;
        GrammarPtr grammar;
        std::size_t bytes;
    };

    GrammarPtr find(const std::string& key);  // moves a hit to the front; needs mutex_

    std::size_t max_bytes_, max_grammars_;
    mutable std::mutex mutex_;
    std::list<Entry> entries_;  // most recently used first
    std::size_t bytes_ = 0;
};

}  // namespace forge::app::serve
