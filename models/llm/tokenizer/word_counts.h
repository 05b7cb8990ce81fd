// The first pass of BPE training: text -> pre-tokenizer words -> how often each word occurs.
// Merges never cross a word boundary, so the merge loop needs only the distinct words and
// their counts, not the text (10 MB of English prose is about 2 M words but 60 k distinct).
//
// The text goes through exactly what BpeTokenizer::encode does before merging (UTF-8
// sanitized, then split by the PreTokenizer of the same name), so the words a tokenizer is
// trained on are the words it will later be asked to encode.
#pragma once

#include "models/llm/tokenizer/pre_tokenizer.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace forge::llm {

struct WordCount {
    std::string word;  // raw bytes (not byte-level encoded)
    std::int64_t count = 0;
};

class WordCounts {
public:
    // `pre_tokenizer` is a tokenizer.ggml.pre name ("llama-bpe", "qwen2", ...).
    explicit WordCounts(std::string_view pre_tokenizer);

    // Counts the words of one document (a file); documents are split independently.
    void add(std::string_view text);

    // The distinct words, sorted by their bytes: an order that does not depend on the hash
    // table, so what is built from it is the same on every run.
    std::vector<WordCount> sorted() const;

    const std::string& pre_tokenizer() const { return pre_name_; }
    std::size_t distinct_words() const { return counts_.size(); }
    std::int64_t total_words() const { return total_words_; }
    std::int64_t total_bytes() const { return total_bytes_; }  // after sanitizing

private:
    // Transparent hashing: look a word up by string_view without building a std::string.
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    std::string pre_name_;
    PreTokenizer pre_;
    std::unordered_map<std::string, std::int64_t, Hash, std::equal_to<>> counts_;
    std::int64_t total_words_ = 0;
    std::int64_t total_bytes_ = 0;
};

}  // namespace forge::llm
