#include "models/llm/grammar/token_mask_cache.h"

namespace forge::llm::grammar {

std::shared_ptr<const PositionMask> TokenMaskCache::get(std::span<const std::uint32_t> positions, Matcher& matcher) {
    std::vector<std::uint32_t> key(positions.begin(), positions.end());
    {
        std::lock_guard lock(mutex_);
        if (auto it = masks_.find(key); it != masks_.end()) return it->second;
    }
    // Computed outside the lock: two requests may both compute a new position once; both agree.
    auto mask = compute(positions, matcher);
    std::lock_guard lock(mutex_);
    if (masks_.size() >= kMaxCachedMasks) return mask;  // full: used for this step only
    return masks_.emplace(std::move(key), std::move(mask)).first->second;
}

std::shared_ptr<const PositionMask> TokenMaskCache::compute(std::span<const std::uint32_t> positions, Matcher& matcher) const {
    auto mask = std::make_shared<PositionMask>();
    const VocabularyIndex& v = *vocabulary_;
    mask->allowed.assign((static_cast<std::size_t>(v.n_vocab()) + 63) / 64, 0);
    const auto nodes = v.nodes();
    const std::size_t depth = v.max_depth() + 1;
    std::vector<std::vector<std::int32_t>> levels(depth);
    std::vector<std::size_t> marks(depth + 1);
    std::vector<bool> ran_out(depth, false);  // some prefix of the path ran past the frames' bottom

    const std::size_t base = matcher.arena_mark();
    levels[0].push_back(matcher.push_stack(positions));
    marks[1] = matcher.arena_mark();
    auto allow = [&](std::int32_t token) { mask->allowed[token >> 6] |= std::uint64_t{1} << (token & 63); };
    for (std::uint32_t i = 1; i < nodes.size();) {
        const VocabularyIndex::Node& node = nodes[i];
        const std::size_t d = node.depth;
        matcher.arena_release(marks[d]);
        std::vector<std::int32_t>& here = levels[d];
        here.clear();
        bool out_here = false;  // the path ran past the bottom exactly with this byte
        matcher.advance(levels[d - 1], node.byte, here, out_here);
        const bool alive = !here.empty();
        for (std::int32_t token : v.node_tokens(node)) {
            if (alive || out_here) allow(token);
            else if (ran_out[d - 1]) mask->uncertain.push_back(token);
        }
        ran_out[d] = ran_out[d - 1] || out_here;
        if (!alive) {
            if (ran_out[d]) {  // every longer token here depends on what lies below
                for (std::uint32_t j = i + 1; j < node.subtree_end; ++j) {
                    for (std::int32_t token : v.node_tokens(nodes[j])) mask->uncertain.push_back(token);
                }
            }
            i = node.subtree_end;
            continue;
        }
        marks[d + 1] = matcher.arena_mark();
        ++i;
    }
    matcher.arena_release(base);
    return mask;
}

std::shared_ptr<TokenMaskCache> TokenMaskCache::of(const std::shared_ptr<const Grammar>& grammar,
                                                   const std::shared_ptr<const VocabularyIndex>& vocabulary) {
    struct Entry {
        std::weak_ptr<const Grammar> grammar;
        std::weak_ptr<const VocabularyIndex> vocabulary;
        std::shared_ptr<TokenMaskCache> cache;
    };
    static std::mutex mutex;
    static std::vector<Entry> entries;
    std::lock_guard lock(mutex);
    std::erase_if(entries, [](const Entry& e) { return e.grammar.expired() || e.vocabulary.expired(); });
    for (const Entry& e : entries) {
        if (e.grammar.lock() == grammar && e.vocabulary.lock() == vocabulary) return e.cache;
    }
    entries.push_back({grammar, vocabulary, std::make_shared<TokenMaskCache>(vocabulary)});
    return entries.back().cache;
}

}  // namespace forge::llm::grammar
