// Character classes over Unicode code points, compiled to the byte sequences of their UTF-8
// encodings, so the grammar stays byte-level: a token that ends inside a multi-byte character
// is matched byte by byte like any other. The splitting follows the classic construction
// (as in RE2 and Rust's utf8-ranges): cut the range where the encoded length changes, then
// until every byte position is one contiguous range.
#pragma once

#include "models/llm/grammar/grammar.h"

#include <cstdint>
#include <vector>

namespace forge::llm::grammar {

struct CodepointRange {
    std::uint32_t first = 0, last = 0;  // inclusive
};

constexpr std::uint32_t kMaxCodepoint = 0x10FFFF;

// Sorted, merged, surrogates (U+D800-U+DFFF) removed.
std::vector<CodepointRange> normalize(std::vector<CodepointRange> ranges);
// Every code point not in `ranges` (which must be normalized), surrogates excluded.
std::vector<CodepointRange> complement(const std::vector<CodepointRange>& ranges);

// A symbol matching exactly the UTF-8 encodings of the code points in `ranges`.
Symbol codepoint_class(GrammarBuilder& builder, std::vector<CodepointRange> ranges);

}  // namespace forge::llm::grammar
