// GPT-2's byte-level alphabet: byte-level BPE vocabularies store every byte as a printable
// Unicode character (the printable Latin-1 bytes as themselves, the others shifted to
// U+0100 and up, e.g. ' ' -> 'Ġ', '\n' -> 'Ċ'), so merges never see raw control bytes.
// Same table as openai/gpt-2 encoder.py bytes_to_unicode and llama.cpp's unicode_byte_to_utf8.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace forge::llm::byte_level {

// Each byte of `bytes` as its alphabet character (UTF-8).
std::string encode(std::string_view bytes);
// The inverse; characters outside the alphabet are kept as they are.
std::string decode(std::string_view text);

}  // namespace forge::llm::byte_level
