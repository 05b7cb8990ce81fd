// Byte-level BPE (GPT-2 style) over one pre-tokenized word: start from single characters of
// the byte-level alphabet and repeatedly merge the adjacent pair with the lowest merge rank
// (leftmost on ties) until no pair has a rank. This is llama.cpp's llm_tokenizer_bpe_session,
// which agrees with Hugging Face tokenizers on every vocabulary it supports.
#pragma once

#include "models/llm/tokenizer/pre_tokenizer.h"
#include "models/llm/tokenizer/vocab.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace forge::llm {

class BpeTokenizer {
public:
    explicit BpeTokenizer(const Vocab& vocab);

    // Appends the ids of `text` (a fragment with no special tokens in it).
    void encode(std::string_view text, std::vector<std::int32_t>& out) const;

    bool add_bos_default() const { return pre_.add_bos_default(); }

private:
    void encode_word(std::string_view word, std::vector<std::int32_t>& out) const;
    void emit(std::string_view symbol, std::vector<std::int32_t>& out) const;

    const Vocab* vocab_;
    PreTokenizer pre_;
};

}  // namespace forge::llm
