#include "models/llm/tokenizer/utf8.h"

#include "core/utf8.h"

#include <algorithm>
#include <optional>

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

std::string sanitize(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) {
        // Decoded as llama.cpp's unicode_cpt_from_utf8 does (core/utf8.h), then held to
        // Unicode scalar values.
        const std::optional<forge::utf8::Decoded> d = forge::utf8::decode(text, at);
        const bool valid = d && d->codepoint <= 0x10FFFF && !(d->codepoint >= 0xD800 && d->codepoint <= 0xDFFF);
        append(out, valid ? d->codepoint : 0xFFFD);
        at += d ? d->length : 1;
    }
    return out;
}

std::size_t incomplete_tail(std::string_view text) {
    // Look back over at most three continuation bytes for the lead byte of the last sequence.
    const std::size_t n = text.size();
    for (std::size_t back = 1; back <= 4 && back <= n; ++back) {
        const auto byte = static_cast<unsigned char>(text[n - back]);
        if (forge::utf8::is_continuation(byte)) continue;
        if (byte < 0x80) return 0;
        const std::size_t need = std::max<std::size_t>(forge::utf8::lead_length(byte), 1);
        return need > back ? back : 0;
    }
    return 0;
}

}  // namespace forge::llm::utf8
