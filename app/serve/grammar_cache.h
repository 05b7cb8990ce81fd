// Compiled grammars by the request text that produced them (a response_format, or tools +
// tool_choice + parallel_tool_calls): a client that sends the same schema again gets the same
// Grammar object, and with it the token masks already computed for it (the TokenMaskCache of
// models/llm/grammar is kept per grammar), so only the first such request pays for them. The
// least recently used grammar goes once more than `capacity` are held.
#pragma once

#include "models/llm/grammar/grammar.h"

#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace forge::app::serve {

class GrammarCache {
public:
    using GrammarPtr = std::shared_ptr<const llm::grammar::Grammar>;

    explicit GrammarCache(std::size_t capacity = 64) : capacity_(capacity) {}

    // The grammar cached under `key`, else compile() (outside the lock; an exception passes
    // through and nothing is cached).
    GrammarPtr get(const std::string& key, const std::function<GrammarPtr()>& compile);
    std::size_t size() const;

private:
    GrammarPtr find(const std::string& key);  // moves a hit to the front; needs mutex_

    std::size_t capacity_;
    mutable std::mutex mutex_;
    std::list<std::pair<std::string, GrammarPtr>> entries_;  // most recently used first
};

}  // namespace forge::app::serve
