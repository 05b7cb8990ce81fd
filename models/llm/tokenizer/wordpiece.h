// WordPiece (tokenizer.ggml.model = "bert"), the tokenizer of BERT-family encoders (bge,
// all-MiniLM, nomic-embed), as llama.cpp runs it (src/llama-vocab.cpp, llm_tokenizer_wpm):
//
//   1. normalise: each codepoint to the first codepoint of its NFD decomposition (accents
//      go), lowercased; control characters, U+0000 and U+FFFD dropped;
//   2. split into words at whitespace, and around every punctuation character, every ASCII
//      symbol and every CJK ideograph (each of those is a word of its own);
//   3. each word, with a "▁" (U+2581) prefix marking its start, is cut greedily into the
//      longest vocabulary entries from left to right; a word with any part that is no entry
//      becomes one [UNK].
//
// The GGUF converter stores a word-initial piece as "▁piece" and a continuation ("##ing" in
// the original vocab.txt) as "ing", which is why step 3 needs no "##".
#pragma once

#include "models/llm/tokenizer/vocab.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace forge::llm {

class WordPieceTokenizer {
public:
    explicit WordPieceTokenizer(const Vocab& vocab);

    // Appends the ids of `text` (no [CLS] / [SEP]: the Tokenizer adds those).
    void encode(std::string_view text, std::vector<std::int32_t>& out) const;

    // Steps 1 and 2: the normalised words of `text`.
    static std::vector<std::string> split_words(std::string_view text);

private:
    void encode_word(const std::string& word, std::vector<std::int32_t>& out) const;

    const Vocab* vocab_;
    std::size_t longest_token_bytes_ = 0;
};

}  // namespace forge::llm
