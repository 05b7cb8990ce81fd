#include "models/llm/tokenizer/word_counts.h"

#include "models/llm/tokenizer/utf8.h"

#include <algorithm>

namespace forge::llm {

WordCounts::WordCounts(std::string_view pre_tokenizer) : pre_name_(pre_tokenizer), pre_(pre_tokenizer) {}

void WordCounts::add(std::string_view text) {
    const std::string clean = utf8::sanitize(text);
    total_bytes_ += static_cast<std::int64_t>(clean.size());
    for (const std::string_view word : pre_.split(clean)) {
        ++total_words_;
        const auto it = counts_.find(word);
        if (it != counts_.end()) {
            ++it->second;
        } else {
            counts_.emplace(std::string(word), 1);
        }
    }
}

std::vector<WordCount> WordCounts::sorted() const {
    std::vector<WordCount> words;
    words.reserve(counts_.size());
    for (const auto& [word, count] : counts_) words.push_back({word, count});
    std::sort(words.begin(), words.end(), [](const WordCount& a, const WordCount& b) { return a.word < b.word; });
    return words;
}

}  // namespace forge::llm
