#include "app/serve/grammar_cache.h"

namespace forge::app::serve {

GrammarCache::GrammarPtr GrammarCache::find(const std::string& key) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->key != key) continue;
        entries_.splice(entries_.begin(), entries_, it);
        return entries_.front().grammar;
    }
    return nullptr;
}

GrammarCache::GrammarPtr GrammarCache::get(const std::string& key, const std::function<GrammarPtr()>& compile) {
    {
        std::lock_guard lock(mutex_);
        if (GrammarPtr hit = find(key)) return hit;
    }
    GrammarPtr compiled = compile();  // unlocked: other requests need not wait for a big schema
    const std::size_t bytes = key.capacity() + (compiled != nullptr ? compiled->memory_bytes() : 0);
    std::lock_guard lock(mutex_);
    if (GrammarPtr raced = find(key)) return raced;  // another request compiled it meanwhile: share that one
    if (bytes > max_bytes_) return compiled;          // too large to keep: it serves this request only
    entries_.push_front({key, compiled, bytes});
    bytes_ += bytes;
    while (bytes_ > max_bytes_ || entries_.size() > max_grammars_) {
        bytes_ -= entries_.back().bytes;
        entries_.pop_back();
    }
    return compiled;
}

std::size_t GrammarCache::size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
}

std::size_t GrammarCache::bytes() const {
    std::lock_guard lock(mutex_);
    return bytes_;
}

}  // namespace forge::app::serve
