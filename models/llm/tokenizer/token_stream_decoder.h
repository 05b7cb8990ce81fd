// Streaming detokenization: a token can end in the middle of a UTF-8 character (byte-level
// BPE splits rare characters and emoji into byte tokens; SentencePiece emits <0xXX> bytes),
// so printing each piece as it comes would print broken characters. The decoder holds back
// an incomplete trailing UTF-8 sequence until the bytes that finish it arrive, and prints a
// sequence that can never complete as U+FFFD.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace forge::llm {

class Tokenizer;

class TokenStreamDecoder {
public:
    TokenStreamDecoder() = default;  // push_bytes() only
    explicit TokenStreamDecoder(const Tokenizer& tokenizer, bool special = false)
        : tokenizer_(&tokenizer), special_(special) {}

    // The text that is complete after this token (possibly empty).
    std::string push(std::int32_t id);
    // Bytes alone: what push() does after looking up the piece.
    std::string push_bytes(std::string_view bytes);
    // Whatever is still held back at the end of the stream, as U+FFFD per broken sequence.
    std::string flush();

private:
    const Tokenizer* tokenizer_ = nullptr;
    bool special_ = false;
    std::string pending_;
};

}  // namespace forge::llm
