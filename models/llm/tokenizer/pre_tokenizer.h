// Byte-level BPE pre-tokenization: before merging, text is cut into "words" by regular
// expressions that depend on the model family (tokenizer.ggml.pre). Merges never cross a
// word boundary. Each regex refines the pieces of the one before (llama.cpp's
// unicode_regex_split); most families need one.
#pragma once

#include "models/llm/tokenizer/pcre2_regex.h"

#include <string>
#include <string_view>
#include <vector>

namespace forge::llm {

class PreTokenizer {
public:
    // `name` is tokenizer.ggml.pre: "gpt-2", "llama-bpe" (Llama 3), "qwen2", "default", ...
    // Unknown names throw FormatError, as llama.cpp refuses them.
    explicit PreTokenizer(std::string_view name);

    // Splits valid UTF-8 text into words, each still raw bytes.
    std::vector<std::string_view> split(std::string_view text) const;

    // Llama 3 looks a whole word up in the vocabulary before merging (llama.cpp's
    // tokenizer_ignore_merges): some vocab entries are not reachable by merges.
    bool ignore_merges() const { return ignore_merges_; }
    // The BOS default of the family, before tokenizer.ggml.add_bos_token overrides it.
    bool add_bos_default() const { return add_bos_default_; }

private:
    std::vector<Pcre2Regex> regexes_;
    bool ignore_merges_ = false;
    bool add_bos_default_ = false;
};

}  // namespace forge::llm
