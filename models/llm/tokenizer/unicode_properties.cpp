#include "models/llm/tokenizer/unicode_properties.h"

#include <algorithm>
#include <array>

namespace forge::llm::unicode {

namespace {

// The last entry whose first codepoint is <= c, if any: tables are sorted and disjoint.
template <typename Entry, typename First>
const Entry* entry_at_or_before(std::span<const Entry> table, char32_t c, First first) {
    const auto it = std::upper_bound(table.begin(), table.end(), c,
                                     [&](char32_t value, const Entry& e) { return value < first(e); });
    return it == table.begin() ? nullptr : &*(it - 1);
}

bool in_ranges(std::span<const CodepointRange> ranges, char32_t c) {
    const auto* range = entry_at_or_before(ranges, c, [](const CodepointRange& r) { return r.first; });
    return range != nullptr && c <= range->last;
}

}  // namespace

bool is_whitespace(char32_t c) {
    static constexpr std::array<CodepointRange, 10> kWhiteSpace = {{
        {0x09, 0x0D}, {0x20, 0x20}, {0x85, 0x85}, {0xA0, 0xA0}, {0x1680, 0x1680},
        {0x2000, 0x200A}, {0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000},
    }};
    return in_ranges(kWhiteSpace, c);
}

bool is_punctuation(char32_t c) { return in_ranges(punctuation_ranges(), c); }
bool is_symbol(char32_t c) { return in_ranges(symbol_ranges(), c); }
bool is_control(char32_t c) { return in_ranges(control_ranges(), c); }

char32_t to_lower(char32_t c) {
    const auto* pair = entry_at_or_before(lowercase_pairs(), c, [](const CodepointPair& p) { return p.from; });
    return pair != nullptr && pair->from == c ? pair->to : c;
}

char32_t decomposition_base(char32_t c) {
    const auto* range =
        entry_at_or_before(decomposition_base_ranges(), c, [](const CodepointRangeMap& r) { return r.first; });
    return range != nullptr && c <= range->last ? range->to : c;
}

}  // namespace forge::llm::unicode
