#include "core/utf8.h"

namespace forge::utf8 {

std::size_t lead_length(unsigned char lead) {
    if (lead < 0x80) return 1;
    if ((lead & 0xE0) == 0xC0) return 2;
    if ((lead & 0xF0) == 0xE0) return 3;
    if ((lead & 0xF8) == 0xF0) return 4;
    return 0;
}

std::optional<Decoded> decode(std::string_view text, std::size_t at) {
    const auto lead = static_cast<unsigned char>(text[at]);
    const std::size_t length = lead_length(lead);
    if (length == 0 || at + length > text.size()) return std::nullopt;
    // The lead's payload: 7, 5, 4 or 3 bits.
    char32_t cp = length == 1 ? lead : lead & (0x3F >> (length - 1));
    for (std::size_t i = 1; i < length; ++i) {
        const auto byte = static_cast<unsigned char>(text[at + i]);
        if (!is_continuation(byte)) return std::nullopt;
        cp = (cp << 6) | (byte & 0x3F);
    }
    return Decoded{cp, length};
}

bool is_valid(std::string_view text) {
    for (std::size_t at = 0; at < text.size();) {
        const std::optional<Decoded> d = decode(text, at);
        if (!d) return false;
        at += d->length;
    }
    return true;
}

}  // namespace forge::utf8
