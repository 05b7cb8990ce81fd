#include "app/serve/grammar_cache.h"

namespace forge::app::serve {

GrammarCache::GrammarPtr GrammarCache::find(const std::string& key) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->first != key) continue;
        entries_.splice(entries_.begin(), entries_, it);
        return entries_.front().second;
    }
    return nullptr;
}

GrammarCache::GrammarPtr GrammarCache::get(const std::string& key, const std::function<GrammarPtr()>& compile) {
    {
        std::lock_guard lock(mutex_);
        if (GrammarPtr hit = find(key)) return hit;
    }
    GrammarPtr compiled = compile();  // unlocked: other requests need not wait for a big schema
    std::lock_guard lock(mutex_);
    if (GrammarPtr raced = find(key)) return raced;  // another request compiled it meanwhile: share that one
    entries_.emplace_front(key, compiled);
    if (entries_.size() > capacity_) entries_.pop_back();
    return compiled;
}

std::size_t GrammarCache::size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
}

}  // namespace forge::app::serve
