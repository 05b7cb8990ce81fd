// The first step of encoding: cut special tokens out of the text so that "<|im_start|>" is
// one id instead of the BPE of its characters. Control (and unknown) tokens are cut only
// with parse_special; user-defined tokens ("<think>") always, as Hugging Face tokenizers and
// llama.cpp (tokenizer_st_partition) do. Longer tokens are cut first.
#pragma once

#include "models/llm/tokenizer/vocab.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace forge::llm {

// Either a special token (id >= 0) or a run of text to tokenize normally (id == -1).
struct Fragment {
    std::int32_t id = -1;
    std::string_view text;
};

std::vector<Fragment> split_special_tokens(const Vocab& vocab, std::string_view text, bool parse_special);

}  // namespace forge::llm
