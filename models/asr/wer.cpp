#include "models/asr/wer.h"

#include <algorithm>
#include <limits>

namespace forge::asr {
namespace {

bool is_word_char(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '\'' || c >= 0x80;
}

void add_word(std::string word, std::vector<std::string>& words) {
    const auto first = word.find_first_not_of('\'');
    if (first == std::string::npos) return;  // only apostrophes
    const auto last = word.find_last_not_of('\'');
    words.push_back(word.substr(first, last - first + 1));
}

}  // namespace

std::vector<std::string> normalize_words(std::string_view text) {
    std::vector<std::string> words;
    std::string word;
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (is_word_char(c)) {
            word.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : ch);
        } else if (!word.empty()) {
            add_word(std::move(word), words);
            word.clear();
        }
    }
    if (!word.empty()) add_word(std::move(word), words);
    return words;
}

double WordErrors::rate() const {
    if (reference_words == 0) return errors() == 0 ? 0.0 : std::numeric_limits<double>::infinity();
    return static_cast<double>(errors()) / static_cast<double>(reference_words);
}

WordErrors& WordErrors::operator+=(const WordErrors& other) {
    substitutions += other.substitutions;
    deletions += other.deletions;
    insertions += other.insertions;
    reference_words += other.reference_words;
    return *this;
}

WordErrors word_errors(std::span<const std::string> reference, std::span<const std::string> hypothesis) {
    // cost[i][j]: edits turning the first i reference words into the first j hypothesis words.
    const std::size_t rows = reference.size() + 1, cols = hypothesis.size() + 1;
    std::vector<std::int64_t> cost(rows * cols);
    auto at = [&](std::size_t i, std::size_t j) -> std::int64_t& { return cost[i * cols + j]; };
    for (std::size_t i = 0; i < rows; ++i) at(i, 0) = static_cast<std::int64_t>(i);
    for (std::size_t j = 0; j < cols; ++j) at(0, j) = static_cast<std::int64_t>(j);
    for (std::size_t i = 1; i < rows; ++i) {
        for (std::size_t j = 1; j < cols; ++j) {
            const std::int64_t diagonal = at(i - 1, j - 1) + (reference[i - 1] == hypothesis[j - 1] ? 0 : 1);
            at(i, j) = std::min({diagonal, at(i - 1, j) + 1, at(i, j - 1) + 1});
        }
    }
    WordErrors e;
    e.reference_words = static_cast<std::int64_t>(reference.size());
    std::size_t i = reference.size(), j = hypothesis.size();
    while (i > 0 || j > 0) {
        if (i > 0 && j > 0 && at(i, j) == at(i - 1, j - 1) + (reference[i - 1] == hypothesis[j - 1] ? 0 : 1)) {
            if (reference[i - 1] != hypothesis[j - 1]) ++e.substitutions;
            --i, --j;
        } else if (i > 0 && at(i, j) == at(i - 1, j) + 1) {
            ++e.deletions;
            --i;
        } else {
            ++e.insertions;
            --j;
        }
    }
    return e;
}

WordErrors word_errors(std::string_view reference, std::string_view hypothesis) {
    const auto r = normalize_words(reference), h = normalize_words(hypothesis);
    return word_errors(r, h);
}

}  // namespace forge::asr
