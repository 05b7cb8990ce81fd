#include "models/llm/grammar/utf8_ranges.h"

#include "core/error.h"

#include <algorithm>
#include <array>

namespace forge::llm::grammar {

namespace {

constexpr std::uint32_t kSurrogateFirst = 0xD800, kSurrogateLast = 0xDFFF;

int encoded_length(std::uint32_t cp) { return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4; }

std::array<std::uint8_t, 4> encode(std::uint32_t cp, int n) {
    std::array<std::uint8_t, 4> out{};
    static constexpr std::uint8_t kLead[5] = {0, 0x00, 0xC0, 0xE0, 0xF0};
    for (int i = n - 1; i > 0; --i, cp >>= 6) out[i] = static_cast<std::uint8_t>(0x80 | (cp & 0x3F));
    out[0] = static_cast<std::uint8_t>(kLead[n] | cp);
    return out;
}

// [first, last] with one encoded length: split until each byte position is one range.
void split_same_length(std::uint32_t first, std::uint32_t last, int n, std::vector<std::vector<ByteSet>>& out) {
    for (int i = 1; i < n; ++i) {
        const std::uint32_t m = (1u << (6 * i)) - 1;
        if ((first & ~m) == (last & ~m)) continue;
        if ((first & m) != 0) {
            split_same_length(first, first | m, n, out);
            split_same_length((first | m) + 1, last, n, out);
            return;
        }
        if ((last & m) != m) {
            split_same_length(first, (last & ~m) - 1, n, out);
            split_same_length(last & ~m, last, n, out);
            return;
        }
    }
    const auto lo = encode(first, n), hi = encode(last, n);
    std::vector<ByteSet> sequence(n);
    for (int k = 0; k < n; ++k) sequence[k].add_range(lo[k], hi[k]);
    out.push_back(std::move(sequence));
}

}  // namespace

std::vector<CodepointRange> normalize(std::vector<CodepointRange> ranges) {
    std::vector<CodepointRange> cut;
    for (CodepointRange r : ranges) {
        check(r.first <= r.last && r.last <= kMaxCodepoint, "character class: bad range U+{:04X}-U+{:04X}", r.first, r.last);
        if (r.last < kSurrogateFirst || r.first > kSurrogateLast) {
            cut.push_back(r);
            continue;
        }
        if (r.first < kSurrogateFirst) cut.push_back({r.first, kSurrogateFirst - 1});
        if (r.last > kSurrogateLast) cut.push_back({kSurrogateLast + 1, r.last});
    }
    std::sort(cut.begin(), cut.end(), [](auto a, auto b) { return a.first < b.first; });
    std::vector<CodepointRange> merged;
    for (CodepointRange r : cut) {
        if (!merged.empty() && r.first <= merged.back().last + 1) merged.back().last = std::max(merged.back().last, r.last);
        else merged.push_back(r);
    }
    return merged;
}

std::vector<CodepointRange> complement(const std::vector<CodepointRange>& ranges) {
    std::vector<CodepointRange> out;
    std::uint32_t next = 0;
    for (CodepointRange r : ranges) {
        if (r.first > next) out.push_back({next, r.first - 1});
        next = r.last + 1;
    }
    if (next <= kMaxCodepoint) out.push_back({next, kMaxCodepoint});
    return normalize(std::move(out));
}

Symbol codepoint_class(GrammarBuilder& builder, std::vector<CodepointRange> ranges) {
    ranges = normalize(std::move(ranges));
    check(!ranges.empty(), "character class matches no character");
    ByteSet ascii;
    std::vector<std::vector<ByteSet>> multi;
    for (CodepointRange r : ranges) {
        for (std::uint32_t first = r.first; first <= r.last;) {
            const int n = encoded_length(first);
            const std::uint32_t length_end = n == 1 ? 0x7F : n == 2 ? 0x7FF : n == 3 ? 0xFFFF : kMaxCodepoint;
            const std::uint32_t last = std::min(r.last, length_end);
            if (n == 1) ascii.add_range(static_cast<std::uint8_t>(first), static_cast<std::uint8_t>(last));
            else split_same_length(first, last, n, multi);
            first = last + 1;
        }
    }
    if (multi.empty()) return builder.bytes(ascii);
    std::vector<GrammarBuilder::Sequence> alternatives;
    if (!ascii.empty()) alternatives.push_back({builder.bytes(ascii)});
    for (const auto& sequence : multi) {
        GrammarBuilder::Sequence symbols;
        for (const ByteSet& set : sequence) symbols.push_back(builder.bytes(set));
        alternatives.push_back(std::move(symbols));
    }
    return builder.rule("char", std::move(alternatives));
}

}  // namespace forge::llm::grammar
