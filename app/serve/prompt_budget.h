// A prompt's text checked against a slot's context before it is tokenized. Tokenizing 8 MiB of
// text took about 170 MB and seconds, only for the prompt to be refused for its length; the
// text's size in bytes already tells. Every token covers at most as many bytes of text as its
// vocabulary entry is long (byte-level BPE spells a byte in one or two bytes, SentencePiece a
// space as the three bytes of "▁" and a fallback byte as "<0xXX>", special tokens are their
// text), so text of B bytes makes at least B / L tokens, L the longest entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace forge::llm {
class Tokenizer;
}

namespace forge::app::serve {

// L above: the longest vocabulary entry, in bytes (at least 1).
std::size_t longest_token_bytes(const llm::Tokenizer& tokenizer);

// The most bytes of text that may still fit a prompt below `n_ctx` tokens.
std::size_t max_prompt_bytes(std::int64_t n_ctx, std::size_t longest_token);

// Throws ApiError 400 (code context_length_exceeded, param `param`) when text of `text_bytes`
// makes too many tokens for a prompt in `n_ctx` positions whatever its content.
void check_prompt_bytes(std::size_t text_bytes, std::int64_t n_ctx, std::size_t longest_token, const std::string& param);

}  // namespace forge::app::serve
