// The per-codepoint Unicode properties WordPiece pre-processing reads (models/llm/tokenizer/
// wordpiece.h): whitespace, punctuation, symbol and control classes, the simple lowercase
// mapping and the accent-stripping first codepoint of a canonical decomposition. The tables are
// generated (tools/make_unicode_tables.py -> unicode_tables.cpp); the lookups are here.
#pragma once

#include <span>

namespace forge::llm::unicode {

struct CodepointRange {
    char32_t first, last;  // inclusive
};
struct CodepointPair {
    char32_t from, to;
};
struct CodepointRangeMap {
    char32_t first, last, to;  // every codepoint of first..last maps to `to`
};

// Unicode's White_Space property (PropList.txt), the set llama.cpp's tokenizers split on.
bool is_whitespace(char32_t c);
bool is_punctuation(char32_t c);  // general category P*
bool is_symbol(char32_t c);       // S*
bool is_control(char32_t c);      // Cc, Cf, Co, Cs
char32_t to_lower(char32_t c);    // the simple lowercase mapping; c itself if none
// The first codepoint of c's canonical decomposition (NFD): "é" -> "e"; c itself if none.
char32_t decomposition_base(char32_t c);

// The generated tables, sorted by codepoint.
std::span<const CodepointRange> punctuation_ranges();
std::span<const CodepointRange> symbol_ranges();
std::span<const CodepointRange> control_ranges();
std::span<const CodepointPair> lowercase_pairs();
std::span<const CodepointRangeMap> decomposition_base_ranges();

}  // namespace forge::llm::unicode
