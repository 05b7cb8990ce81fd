#include "models/llm/tokenizer/bpe_merge_learner.h"

#include <queue>
#include <unordered_map>

namespace forge::llm {

namespace {

// A pair of token ids packed into one integer: the left id in the high half, so that
// comparing keys compares (left, right) lexicographically.
using PairKey = std::uint64_t;

PairKey pair_key(std::int32_t left, std::int32_t right) {
    return (static_cast<PairKey>(static_cast<std::uint32_t>(left)) << 32) | static_cast<std::uint32_t>(right);
}
std::int32_t left_of(PairKey key) { return static_cast<std::int32_t>(key >> 32); }
std::int32_t right_of(PairKey key) { return static_cast<std::int32_t>(key & 0xFFFFFFFFu); }

struct QueueEntry {
    std::int64_t count;
    PairKey pair;
};

// std::priority_queue keeps the "largest" on top: the highest count, then the smallest pair.
struct LowerPriority {
    bool operator()(const QueueEntry& a, const QueueEntry& b) const {
        return a.count < b.count || (a.count == b.count && a.pair > b.pair);
    }
};

struct Word {
    std::vector<std::int32_t> symbols;  // token ids
    std::int64_t count = 0;
};

class MergeLearner {
public:
    explicit MergeLearner(std::span<const WordCount> words) {
        words_.reserve(words.size());
        for (const WordCount& w : words) {
            Word word{{}, w.count};
            word.symbols.reserve(w.word.size());
            for (const char byte : w.word) word.symbols.push_back(static_cast<unsigned char>(byte));
            words_.push_back(std::move(word));
        }
        for (std::int32_t index = 0; index < static_cast<std::int32_t>(words_.size()); ++index) {
            const Word& word = words_[index];
            for (std::size_t i = 1; i < word.symbols.size(); ++i) {
                const PairKey key = pair_key(word.symbols[i - 1], word.symbols[i]);
                counts_[key] += word.count;
                remember(key, index);
            }
        }
        for (const auto& [key, count] : counts_) queue_.push({count, key});
    }

    // The most frequent pair still in the corpus, or false when no pair is left.
    bool best(QueueEntry& out) {
        while (!queue_.empty()) {
            const QueueEntry top = queue_.top();
            queue_.pop();
            const auto it = counts_.find(top.pair);
            if (it != counts_.end() && it->second == top.count) {
                out = top;
                return true;
            }
            // Stale: the count changed since this entry was pushed, and a fresh entry was pushed then.
        }
        return false;
    }

    // Replaces every occurrence of `pair` with `result` and brings the pair counts up to date.
    void merge(PairKey pair, std::int32_t result) {
        const auto found = where_.find(pair);
        const std::vector<std::int32_t> candidates = std::move(found->second);
        where_.erase(found);
        delta_.clear();
        for (const std::int32_t index : candidates) merge_in_word(index, pair, result);
        for (const auto& [key, change] : delta_) {
            if (change == 0) continue;
            const std::int64_t count = counts_[key] += change;
            if (count > 0) {
                queue_.push({count, key});
            } else {
                counts_.erase(key);
            }
        }
    }

private:
    // The word index list of a pair may name a word twice or name a word that no longer has
    // the pair; merge_in_word() checks, so only consecutive repeats are worth avoiding here.
    void remember(PairKey key, std::int32_t index) {
        auto& list = where_[key];
        if (list.empty() || list.back() != index) list.push_back(index);
    }

    void merge_in_word(std::int32_t index, PairKey pair, std::int32_t result) {
        Word& word = words_[index];
        const std::int32_t left = left_of(pair), right = right_of(pair);
        auto& s = word.symbols;
        bool present = false;
        for (std::size_t i = 1; i < s.size() && !present; ++i) present = s[i - 1] == left && s[i] == right;
        if (!present) return;

        // Words are short, so the whole word's pairs are taken out and the merged word's put
        // back; pairs away from the merge cancel in delta_.
        for (std::size_t i = 1; i < s.size(); ++i) delta_[pair_key(s[i - 1], s[i])] -= word.count;
        std::size_t out = 0;
        for (std::size_t i = 0; i < s.size(); ++i) {
            // Left to right, non-overlapping: "a a a" with the pair (a, a) becomes "aa a".
            if (i + 1 < s.size() && s[i] == left && s[i + 1] == right) {
                s[out++] = result;
                ++i;
            } else {
                s[out++] = s[i];
            }
        }
        s.resize(out);
        for (std::size_t i = 1; i < s.size(); ++i) {
            const PairKey key = pair_key(s[i - 1], s[i]);
            delta_[key] += word.count;
            if (s[i - 1] == result || s[i] == result) remember(key, index);
        }
    }

    std::vector<Word> words_;
    std::unordered_map<PairKey, std::int64_t> counts_;              // pairs with a count > 0
    std::unordered_map<PairKey, std::vector<std::int32_t>> where_;  // pair -> words that may hold it
    std::priority_queue<QueueEntry, std::vector<QueueEntry>, LowerPriority> queue_;
    std::unordered_map<PairKey, std::int64_t> delta_;  // count changes of the merge in progress
};

}  // namespace

LearnedBpe learn_bpe_merges(std::span<const WordCount> words, std::int32_t n_tokens,
                            const std::function<void(const MergeProgress&)>& progress) {
    LearnedBpe learned;
    std::unordered_map<std::string, std::int32_t> id_of;  // raw bytes -> token id
    for (int byte = 0; byte < 256; ++byte) {
        learned.tokens.emplace_back(1, static_cast<char>(byte));
        id_of.emplace(learned.tokens.back(), byte);
    }
    MergeLearner learner(words);
    QueueEntry best{};
    while (static_cast<std::int32_t>(learned.tokens.size()) < n_tokens && learner.best(best)) {
        const std::int32_t left = left_of(best.pair), right = right_of(best.pair);
        std::string bytes = learned.tokens[left] + learned.tokens[right];
        // Two different pairs can spell the same bytes ("ab"+"c", "a"+"bc"): the second merge
        // makes no new token, as in Hugging Face's trainer, so token texts stay unique.
        auto [it, fresh] = id_of.try_emplace(bytes, static_cast<std::int32_t>(learned.tokens.size()));
        if (fresh) learned.tokens.push_back(std::move(bytes));
        learned.merges.push_back({left, right, it->second, best.count});
        learner.merge(best.pair, it->second);
        if (progress && (learned.merges.size() % 64 == 0)) {
            progress({static_cast<std::int32_t>(learned.tokens.size()), n_tokens});
        }
    }
    if (progress) progress({static_cast<std::int32_t>(learned.tokens.size()), n_tokens});
    return learned;
}

}  // namespace forge::llm
