#include "models/llm/tokenizer/bpe.h"

#include "models/llm/tokenizer/byte_level.h"
#include "models/llm/tokenizer/symbol_list.h"
#include "models/llm/tokenizer/utf8.h"

#include <queue>
#include <string>

namespace forge::llm {

namespace {

struct Candidate {
    int rank;
    int left, right;
    std::size_t length;  // of the merged text, to detect a stale candidate
};

// Lowest rank first, then leftmost: the order llama.cpp's llm_bigram_bpe::comparator gives.
struct LaterFirst {
    bool operator()(const Candidate& a, const Candidate& b) const {
        return a.rank > b.rank || (a.rank == b.rank && a.left > b.left);
    }
};

class WordMerger {
public:
    WordMerger(const Vocab& vocab, std::string_view word) : vocab_(vocab), word_(word) {}

    // Splits the word into characters and merges them; returns the final symbols in order.
    std::vector<std::string_view> run() {
        symbols_ = split_into_characters(word_);
        for (int i = 1; i < static_cast<int>(symbols_.size()); ++i) consider(i - 1, i);
        while (!queue_.empty()) {
            const Candidate best = queue_.top();
            queue_.pop();
            merge(best);
        }
        std::vector<std::string_view> out;
        for (const Symbol& s : symbols_) {
            if (s.length > 0) out.push_back(word_.substr(s.begin, s.length));
        }
        return out;
    }

private:
    std::string_view text(int i) const { return word_.substr(symbols_[i].begin, symbols_[i].length); }

    void consider(int left, int right) {
        if (left < 0 || right < 0) return;
        const int rank = vocab_.merge_rank(text(left), text(right));
        if (rank < 0) return;
        queue_.push({rank, left, right, symbols_[left].length + symbols_[right].length});
    }

    void merge(const Candidate& c) {
        Symbol& left = symbols_[c.left];
        Symbol& right = symbols_[c.right];
        // Stale: one side was merged into something else since this pair was queued.
        if (left.length == 0 || right.length == 0 || left.next != c.right || left.length + right.length != c.length) {
            return;
        }
        left.length += right.length;
        right.length = 0;
        left.next = right.next;
        if (right.next >= 0) symbols_[right.next].prev = c.left;
        consider(left.prev, c.left);
        consider(c.left, left.next);
    }

    const Vocab& vocab_;
    std::string_view word_;
    std::vector<Symbol> symbols_;
    std::priority_queue<Candidate, std::vector<Candidate>, LaterFirst> queue_;
};

}  // namespace

BpeTokenizer::BpeTokenizer(const Vocab& vocab) : vocab_(&vocab), pre_(vocab.pre_tokenizer()) {}

void BpeTokenizer::encode(std::string_view text, std::vector<std::int32_t>& out) const {
    const std::string clean = utf8::sanitize(text);
    for (const std::string_view word : pre_.split(clean)) {
        encode_word(byte_level::encode(word), out);
    }
}

void BpeTokenizer::encode_word(std::string_view word, std::vector<std::int32_t>& out) const {
    if (pre_.ignore_merges()) {
        if (const auto id = vocab_->find(word)) {
            out.push_back(*id);
            return;
        }
    }
    for (const std::string_view symbol : WordMerger(*vocab_, word).run()) emit(symbol, out);
}

void BpeTokenizer::emit(std::string_view symbol, std::vector<std::int32_t>& out) const {
    if (const auto id = vocab_->find(symbol)) {
        out.push_back(*id);
        return;
    }
    // Not in the vocabulary (a vocabulary without all 256 byte characters): llama.cpp
    // falls back to single bytes of the encoded text and drops what it cannot find.
    for (const char byte : symbol) {
        if (const auto id = vocab_->find(std::string_view(&byte, 1))) out.push_back(*id);
    }
}

}  // namespace forge::llm
