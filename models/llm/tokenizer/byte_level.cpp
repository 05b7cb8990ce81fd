#include "models/llm/tokenizer/byte_level.h"

#include "models/llm/tokenizer/utf8.h"

#include "core/utf8.h"

#include <array>
#include <unordered_map>

namespace forge::llm::byte_level {

namespace {

bool printable(int byte) {
    return (byte >= '!' && byte <= '~') || (byte >= 0xA1 && byte <= 0xAC) || (byte >= 0xAE && byte <= 0xFF);
}

struct Tables {
    std::array<std::string, 256> to_char;
    std::unordered_map<char32_t, char> to_byte;

    Tables() {
        char32_t next = 256;  // non-printable bytes take U+0100, U+0101, ... in byte order
        for (int byte = 0; byte < 256; ++byte) {
            const char32_t cp = printable(byte) ? static_cast<char32_t>(byte) : next++;
            utf8::append(to_char[byte], cp);
            to_byte[cp] = static_cast<char>(byte);
        }
    }
};

const Tables& tables() {
    static const Tables instance;
    return instance;
}

}  // namespace

std::string encode(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size() * 2);
    for (const char byte : bytes) out += tables().to_char[static_cast<unsigned char>(byte)];
    return out;
}

std::string decode(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) {
        // The alphabet's characters are 1 or 2 bytes; anything else (or bytes that do not
        // decode) passes through as it is, a sequence_length at a time.
        const std::optional<forge::utf8::Decoded> d = forge::utf8::decode(text, at);
        const std::size_t length =
            d ? d->length : std::min(utf8::sequence_length(static_cast<unsigned char>(text[at])), text.size() - at);
        const auto it = d && d->length <= 2 ? tables().to_byte.find(d->codepoint) : tables().to_byte.end();
        if (it != tables().to_byte.end()) {
            out += it->second;
        } else {
            out += text.substr(at, length);
        }
        at += length;
    }
    return out;
}

}  // namespace forge::llm::byte_level
