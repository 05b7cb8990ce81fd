// SentencePiece (tokenizer.ggml.model = "llama"): spaces become "▁" (U+2581), then adjacent
// pieces are merged greedily by vocabulary score, highest first and leftmost on ties, as long
// as the merged text is a vocabulary entry. What is left that is not a token falls back to
// <0xXX> byte tokens. This is llama.cpp's llm_tokenizer_spm (itself from
// google/sentencepiece's bpe_model.cc), including its re-segmentation of non-tokens.
#pragma once

#include "models/llm/tokenizer/vocab.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace forge::llm {

class SentencePieceTokenizer {
public:
    explicit SentencePieceTokenizer(const Vocab& vocab) : vocab_(&vocab) {}

    // Appends the ids of `text`; spaces are escaped here, the leading-space prefix is the
    // caller's business (it depends on what came before the fragment).
    void encode(std::string_view text, std::vector<std::int32_t>& out) const;

    // The token for one raw byte: "<0xXX>", else the byte itself as a piece.
    std::int32_t byte_token(unsigned char byte) const;

private:
    const Vocab* vocab_;
};

// " " -> "▁" and back (llama_escape_whitespace / llama_unescape_whitespace).
std::string escape_whitespace(std::string_view text);
std::string unescape_whitespace(std::string_view text);

}  // namespace forge::llm
