// Word error rate: the Levenshtein distance between a hypothesis and a reference counted in
// words, over the number of reference words, after one normalisation of both texts.
//
// Normalisation (normalize_words): ASCII letters are lower-cased; every character that is not
// a letter, a digit or an apostrophe separates words (so punctuation and hyphens do);
// apostrophes at the start or end of a word are dropped ("'tis" -> "tis", "dogs'" -> "dogs")
// and kept inside one ("don't"). Bytes >= 0x80 (non-ASCII UTF-8) are kept as word characters,
// unchanged. Nothing else is rewritten: "mr" and "mister", "2" and "two" are different words.
// This is the scoring of pocketsphinx's test-lm.match and of the NeMo/HF ASR leaderboards'
// basic normaliser minus their number and spelling rules.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace forge::asr {

std::vector<std::string> normalize_words(std::string_view text);

// The edits of one minimum-cost alignment (each edit costs 1). Among alignments of equal
// cost the backtrace prefers substitutions, then deletions, then insertions, so the split
// between kinds is deterministic.
struct WordErrors {
    std::int64_t substitutions = 0;
    std::int64_t deletions = 0;   // reference words missing from the hypothesis
    std::int64_t insertions = 0;  // hypothesis words not in the reference
    std::int64_t reference_words = 0;

    std::int64_t errors() const { return substitutions + deletions + insertions; }
    // errors / reference words (0 for an empty reference and hypothesis; an empty reference
    // with a non-empty hypothesis has no defined rate and gives +inf).
    double rate() const;
    WordErrors& operator+=(const WordErrors& other);  // corpus totals: errors summed, then divided
};

WordErrors word_errors(std::span<const std::string> reference, std::span<const std::string> hypothesis);
WordErrors word_errors(std::string_view reference, std::string_view hypothesis);  // normalised first

}  // namespace forge::asr
