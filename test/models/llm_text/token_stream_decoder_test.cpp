#include "models/llm/tokenizer/token_stream_decoder.h"

#include "models/llm/tokenizer/tokenizer.h"
#include "test/models/llm_text/fixture.h"

#include <gtest/gtest.h>

namespace forge::llm {
namespace {

bool is_valid_utf8(const std::string& text) {
    for (std::size_t i = 0; i < text.size();) {
        const auto lead = static_cast<unsigned char>(text[i]);
        const std::size_t n = lead < 0x80 ? 1 : (lead & 0xE0) == 0xC0 ? 2 : (lead & 0xF0) == 0xE0 ? 3 : (lead & 0xF8) == 0xF0 ? 4 : 0;
        if (n == 0 || i + n > text.size()) return false;
        for (std::size_t k = 1; k < n; ++k) {
            if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
        }
        i += n;
    }
    return true;
}

TEST(TokenStreamDecoder, HoldsBackIncompleteCharacters) {
    TokenStreamDecoder decoder;
    const std::string euro = "\xE2\x82\xAC";  // €
    EXPECT_EQ(decoder.push_bytes(std::string("a").append(euro, 0, 1)), "a");
    EXPECT_EQ(decoder.push_bytes(euro.substr(1, 1)), "");
    EXPECT_EQ(decoder.push_bytes(std::string(euro, 2).append("b")), std::string(euro).append("b"));
    EXPECT_EQ(decoder.flush(), "");
}

TEST(TokenStreamDecoder, FourByteCharacterOneByteAtATime) {
    TokenStreamDecoder decoder;
    const std::string emoji = "\xF0\x9F\x98\x80";  // 😀
    std::string out;
    for (const char byte : emoji) out += decoder.push_bytes(std::string(1, byte));
    EXPECT_EQ(out, emoji);
}

TEST(TokenStreamDecoder, FlushReplacesATruncatedCharacter) {
    TokenStreamDecoder decoder;
    EXPECT_EQ(decoder.push_bytes("x\xF0\x9F"), "x");
    EXPECT_EQ(decoder.flush(), "\xEF\xBF\xBD");
    EXPECT_EQ(decoder.flush(), "");
}

// A lead byte followed by ASCII can never complete: it must not reach the terminal raw.
TEST(TokenStreamDecoder, BrokenSequenceBecomesReplacementCharacter) {
    TokenStreamDecoder decoder;
    EXPECT_EQ(decoder.push_bytes("\xF4"), "");
    EXPECT_EQ(decoder.push_bytes(" ok"), "\xEF\xBF\xBD ok");
    EXPECT_EQ(decoder.push_bytes("\x80x"), "\xEF\xBF\xBDx");  // a stray continuation byte
    EXPECT_EQ(decoder.flush(), "");
}

// Real byte tokens: Qwen3 splits rare CJK characters and ZWJ emoji into byte-level pieces
// that end mid-character; every chunk the decoder prints must be valid UTF-8 on its own.
TEST(TokenStreamDecoder, EveryChunkIsValidUtf8WithRealTokens) {
    const auto gguf = test::load_gguf_gz("qwen3-tokenizer.gguf.gz");
    const auto tokenizer = Tokenizer::from_gguf(gguf.file);
    const std::string text = "家族: 👨‍👩‍👧‍👦 🏳️‍🌈 𠀀𠀁 ꙮ and naïve";
    const auto ids = tokenizer.encode(text, false, false);
    bool some_piece_was_partial = false;
    TokenStreamDecoder decoder(tokenizer);
    std::string streamed;
    for (const auto id : ids) {
        some_piece_was_partial |= !is_valid_utf8(tokenizer.token_to_piece(id));
        const std::string chunk = decoder.push(id);
        EXPECT_TRUE(is_valid_utf8(chunk));
        streamed += chunk;
    }
    streamed += decoder.flush();
    EXPECT_TRUE(some_piece_was_partial) << "the text should exercise partial pieces";
    EXPECT_EQ(streamed, text);
}

}  // namespace
}  // namespace forge::llm
