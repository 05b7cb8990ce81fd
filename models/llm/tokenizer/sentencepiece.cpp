#include "models/llm/tokenizer/sentencepiece.h"

#include "core/error.h"
#include "models/llm/tokenizer/symbol_list.h"

#include <map>
#include <queue>
#include <utility>

namespace forge::llm {

namespace {

constexpr std::string_view kSpace = "\xE2\x96\x81";  // U+2581 LOWER ONE EIGHTH BLOCK

struct Candidate {
    float score;
    int left, right;
    std::size_t length;
};

// Highest score first, then leftmost (llama.cpp's llm_bigram_spm::comparator).
struct LaterFirst {
    bool operator()(const Candidate& a, const Candidate& b) const {
        return a.score < b.score || (a.score == b.score && a.left > b.left);
    }
};

class Session {
public:
    Session(const SentencePieceTokenizer& spm, const Vocab& vocab, std::string_view text)
        : spm_(spm), vocab_(vocab), text_(text) {}

    void run(std::vector<std::int32_t>& out) {
        symbols_ = split_into_characters(text_);
        for (int i = 1; i < static_cast<int>(symbols_.size()); ++i) consider(i - 1, i);
        while (!queue_.empty()) {
            const Candidate best = queue_.top();
            queue_.pop();
            merge(best);
        }
        for (int i = symbols_.empty() ? -1 : 0; i != -1; i = symbols_[i].next) resegment(i, out);
    }

private:
    std::string_view text(std::size_t begin, std::size_t length) const { return text_.substr(begin, length); }

    void consider(int left, int right) {
        if (left < 0 || right < 0) return;
        const std::string_view merged = text(symbols_[left].begin, symbols_[left].length + symbols_[right].length);
        const auto id = vocab_.find(merged);
        if (!id) return;
        queue_.push({vocab_.token(*id).score, left, right, merged.size()});
        // Remember how this text was formed, to split it again if it ends up not a token.
        how_formed_[std::string(merged)] = {left, right};
    }

    void merge(const Candidate& c) {
        Symbol& left = symbols_[c.left];
        Symbol& right = symbols_[c.right];
        if (left.length == 0 || right.length == 0 || left.length + right.length != c.length) return;
        left.length += right.length;
        right.length = 0;
        left.next = right.next;
        if (right.next >= 0) symbols_[right.next].prev = c.left;
        consider(left.prev, c.left);
        consider(c.left, left.next);
    }

    // A final symbol is a token, or the pair it was merged from (recursively), or bytes.
    void resegment(int index, std::vector<std::int32_t>& out) const {
        const Symbol& s = symbols_[index];
        const std::string_view piece = text(s.begin, s.length);
        if (const auto id = vocab_.find(piece)) {
            out.push_back(*id);
            return;
        }
        const auto it = how_formed_.find(std::string(piece));
        if (it == how_formed_.end()) {
            for (const char byte : piece) out.push_back(spm_.byte_token(static_cast<unsigned char>(byte)));
            return;
        }
        resegment(it->second.first, out);
        resegment(it->second.second, out);
    }

    const SentencePieceTokenizer& spm_;
    const Vocab& vocab_;
    std::string_view text_;
    std::vector<Symbol> symbols_;
    std::priority_queue<Candidate, std::vector<Candidate>, LaterFirst> queue_;
    std::map<std::string, std::pair<int, int>, std::less<>> how_formed_;
};

}  // namespace

void SentencePieceTokenizer::encode(std::string_view text, std::vector<std::int32_t>& out) const {
    const std::string escaped = escape_whitespace(text);
    Session(*this, *vocab_, escaped).run(out);
}

std::int32_t SentencePieceTokenizer::byte_token(unsigned char byte) const {
    const std::string hex = fmt::format("<0x{:02X}>", byte);
    if (const auto id = vocab_->find(hex)) return *id;
    if (const auto id = vocab_->find(std::string_view(reinterpret_cast<const char*>(&byte), 1))) return *id;
    fail_format("SentencePiece vocabulary has no token for byte 0x{:02X} (no {} token)", byte, hex);
}

std::string escape_whitespace(std::string_view text) {
    std::string out;
    out.reserve(text.size() + text.size() / 2);
    for (const char c : text) {
        if (c == ' ') {
            out += kSpace;
        } else {
            out += c;
        }
    }
    return out;
}

std::string unescape_whitespace(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) {
        if (text.substr(at, kSpace.size()) == kSpace) {
            out += ' ';
            at += kSpace.size();
        } else {
            out += text[at++];
        }
    }
    return out;
}

}  // namespace forge::llm
