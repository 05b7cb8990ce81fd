#include "models/llm/tokenizer/utf8.h"

namespace forge::llm::utf8 {

std::size_t sequence_length(unsigned char lead) {
    // The high nibble decides, as in llama.cpp's unicode_len_utf8 lookup table.
    static constexpr std::size_t lengths[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
    return lengths[lead >> 4];
}

void append(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

namespace {

bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// Decodes one codepoint at `at` like llama.cpp's unicode_cpt_from_utf8 (which checks the
// continuation bytes but not overlong forms); returns 0 bytes consumed when invalid.
std::size_t decode(std::string_view text, std::size_t at, char32_t& cp) {
    const auto lead = static_cast<unsigned char>(text[at]);
    std::size_t length = 0;
    if (lead < 0x80) {
        cp = lead;
        return 1;
    }
    if ((lead & 0xE0) == 0xC0) {
        length = 2, cp = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
        length = 3, cp = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
        length = 4, cp = lead & 0x07;
    } else {
        return 0;
    }
    if (at + length > text.size()) return 0;
    for (std::size_t i = 1; i < length; ++i) {
        const auto byte = static_cast<unsigned char>(text[at + i]);
        if (!is_continuation(byte)) return 0;
        cp = (cp << 6) | (byte & 0x3F);
    }
    return length;
}

}  // namespace

std::string sanitize(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) {
        char32_t cp = 0;
        const std::size_t used = decode(text, at, cp);
        const bool valid = used > 0 && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
        append(out, valid ? cp : 0xFFFD);
        at += used > 0 ? used : 1;
    }
    return out;
}

std::size_t incomplete_tail(std::string_view text) {
    // Look back over at most three continuation bytes for the lead byte of the last sequence.
    const std::size_t n = text.size();
    for (std::size_t back = 1; back <= 4 && back <= n; ++back) {
        const auto byte = static_cast<unsigned char>(text[n - back]);
        if (is_continuation(byte)) continue;
        if (byte < 0x80) return 0;
        const std::size_t need = (byte & 0xE0) == 0xC0 ? 2 : (byte & 0xF0) == 0xE0 ? 3 : (byte & 0xF8) == 0xF0 ? 4 : 1;
        return need > back ? back : 0;
    }
    return 0;
}

}  // namespace forge::llm::utf8
