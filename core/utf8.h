// Decoding UTF-8, once for the tree: the tokenizers (sanitizing text, the byte-level
// alphabet), the regex subset of the grammar engine, and the speech vocabulary's check all
// step through text with these.
//
// Decoding is llama.cpp's (unicode_cpt_from_utf8): the lead byte announces the length and
// every continuation byte must be 10xxxxxx, but overlong forms, surrogates and values past
// U+10FFFF still decode; a caller that needs Unicode scalar values checks the code point.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace forge::utf8 {

// The bytes of the character a lead byte starts: 1 to 4, or 0 for a byte that cannot start
// one (a continuation byte, 0xF8..0xFF).
std::size_t lead_length(unsigned char lead);

inline bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

struct Decoded {
    char32_t codepoint = 0;
    std::size_t length = 0;  // bytes, 1 to 4
};

// The character at text[at]; none when the bytes there are not one (a bad lead byte, the
// text ends inside it, or a byte after the lead is not a continuation byte).
std::optional<Decoded> decode(std::string_view text, std::size_t at);

// Whether every character of `text` decodes.
bool is_valid(std::string_view text);

}  // namespace forge::utf8
