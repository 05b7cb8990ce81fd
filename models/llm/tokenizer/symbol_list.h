// The working list of both merge tokenizers (BPE by rank, SentencePiece by score): the text
// split into UTF-8 characters, each a symbol linked to its live neighbours. Merging grows a
// symbol and empties its right neighbour (length 0), unlinking it.
#pragma once

#include "models/llm/tokenizer/utf8.h"

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

namespace forge::llm {

struct Symbol {
    std::size_t begin = 0, length = 0;
    int prev = -1, next = -1;
};

// One symbol per UTF-8 character of `text` (a truncated last sequence stays one symbol).
inline std::vector<Symbol> split_into_characters(std::string_view text) {
    std::vector<Symbol> symbols;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t n =
            std::min(utf8::sequence_length(static_cast<unsigned char>(text[at])), text.size() - at);
        const int index = static_cast<int>(symbols.size());
        symbols.push_back({at, n, index - 1, at + n == text.size() ? -1 : index + 1});
        at += n;
    }
    return symbols;
}

}  // namespace forge::llm
