#include "models/llm/tokenizer/wordpiece.h"

#include "core/error.h"
#include "core/utf8.h"
#include "models/llm/tokenizer/unicode_properties.h"
#include "models/llm/tokenizer/utf8.h"

#include <algorithm>

namespace forge::llm {

namespace {

// CJK ideographs, each a word of its own: the ranges of HuggingFace's BertTokenizer
// (_is_chinese_char), including its 0x2B920 where the block starts at 0x2B820, as llama.cpp keeps.
bool is_cjk_ideograph(char32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

// A character that stands alone as a word.
bool is_split_character(char32_t c) {
    return unicode::is_punctuation(c) || (c < 0x7F && unicode::is_symbol(c)) || is_cjk_ideograph(c);
}

constexpr std::string_view kWordStart = "\xE2\x96\x81";  // "▁"

}  // namespace

WordPieceTokenizer::WordPieceTokenizer(const Vocab& vocab) : vocab_(&vocab) {
    for (std::int32_t id = 0; id < vocab.size(); ++id) {
        longest_token_bytes_ = std::max(longest_token_bytes_, vocab.token(id).text.size());
    }
}

std::vector<std::string> WordPieceTokenizer::split_words(std::string_view text) {
    std::vector<std::string> words(1);
    auto finish_word = [&] {
        if (!words.back().empty()) words.emplace_back();
    };
    for (std::size_t at = 0; at < text.size();) {
        // Undecodable bytes are U+FFFD, one byte at a time (llama.cpp's unicode_cpts_from_utf8).
        const auto decoded = forge::utf8::decode(text, at);
        const char32_t c = unicode::decomposition_base(decoded ? decoded->codepoint : char32_t{0xFFFD});
        at += decoded ? decoded->length : 1;
        if (unicode::is_whitespace(c)) {
            finish_word();
            continue;
        }
        if (c == 0 || c == 0xFFFD || unicode::is_control(c)) continue;
        std::string lowered;
        utf8::append(lowered, unicode::to_lower(c));
        if (is_split_character(c)) {
            finish_word();
            words.back() = std::move(lowered);
            words.emplace_back();
        } else {
            words.back() += lowered;
        }
    }
    if (words.back().empty()) words.pop_back();
    return words;
}

void WordPieceTokenizer::encode(std::string_view text, std::vector<std::int32_t>& out) const {
    for (const std::string& word : split_words(text)) encode_word(word, out);
}

void WordPieceTokenizer::encode_word(const std::string& word, std::vector<std::int32_t>& out) const {
    const std::string marked = std::string(kWordStart) + word;
    const std::size_t first_token = out.size();
    // Greedy longest match from the left; lengths are in bytes, so a candidate may end inside
    // a character, as in llama.cpp: such a candidate is simply no vocabulary entry.
    for (std::size_t begin = 0; begin < marked.size();) {
        std::size_t end = std::min(marked.size(), begin + longest_token_bytes_);
        for (; end > begin; --end) {
            if (const auto id = vocab_->find(std::string_view(marked).substr(begin, end - begin))) {
                out.push_back(*id);
                break;
            }
        }
        if (end == begin) {  // a part that is no token: the whole word is unknown
            out.resize(first_token);
            break;
        }
        begin = end;
    }
    if (out.size() == first_token) {
        check(vocab_->special().unk >= 0, "WordPiece: the word '{}' is no token and the vocabulary has no [UNK]", word);
        out.push_back(vocab_->special().unk);
    }
}

}  // namespace forge::llm
