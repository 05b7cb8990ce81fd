// UTF-8 helpers shared by the tokenizers and the stream decoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace forge::llm::utf8 {

// Length of the sequence a lead byte announces (1 for continuation/invalid bytes), the way
// llama.cpp's unicode_len_utf8 counts: the tokenizers step through text with it.
std::size_t sequence_length(unsigned char lead);

void append(std::string& out, char32_t codepoint);

// Text with every undecodable byte replaced by U+FFFD. llama.cpp decodes pre-tokenizer input
// the same way (unicode_cpts_from_utf8), and PCRE2's UTF mode needs valid input. Codepoints
// PCRE2 rejects (surrogates, > U+10FFFF) also become U+FFFD.
std::string sanitize(std::string_view text);

// Bytes at the end of `text` that start a UTF-8 sequence not yet complete (0..3).
std::size_t incomplete_tail(std::string_view text);

}  // namespace forge::llm::utf8
