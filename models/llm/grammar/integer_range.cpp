#include "models/llm/grammar/integer_range.h"

#include "core/error.h"

#include <string>

namespace forge::llm::grammar {

namespace {

using Sequence = GrammarBuilder::Sequence;

// 10^16 - 1: the largest magnitude an unbounded side allows.
constexpr std::uint64_t kLargest = 9999999999999999ull;

Symbol digits(GrammarBuilder& b, char first, char last) {
    ByteSet set;
    set.add_range(static_cast<std::uint8_t>(first), static_cast<std::uint8_t>(last));
    return b.bytes(set);
}

// Alternatives for the numbers from `lo` to `hi`, both strings of the same length.
void same_length(GrammarBuilder& b, const std::string& lo, const std::string& hi, Sequence prefix, std::vector<Sequence>& out) {
    if (lo.empty()) {
        out.push_back(std::move(prefix));
        return;
    }
    const std::size_t rest = lo.size() - 1;
    const bool low_edge_full = lo.find_first_not_of('0', 1) == std::string::npos;
    const bool high_edge_full = hi.find_first_not_of('9', 1) == std::string::npos;
    auto with = [&](Symbol s) {
        Sequence p = prefix;
        p.push_back(s);
        return p;
    };
    auto any_digits = [&](Sequence p) {
        for (std::size_t k = 0; k < rest; ++k) p.push_back(digits(b, '0', '9'));
        return p;
    };
    if (lo[0] == hi[0]) {
        same_length(b, lo.substr(1), hi.substr(1), with(digits(b, lo[0], lo[0])), out);
        return;
    }
    char middle_first = static_cast<char>(lo[0] + 1), middle_last = static_cast<char>(hi[0] - 1);
    if (low_edge_full) middle_first = lo[0];
    else same_length(b, lo.substr(1), std::string(rest, '9'), with(digits(b, lo[0], lo[0])), out);
    if (high_edge_full) middle_last = hi[0];
    if (middle_first <= middle_last) out.push_back(any_digits(with(digits(b, middle_first, middle_last))));
    if (!high_edge_full) same_length(b, std::string(rest, '0'), hi.substr(1), with(digits(b, hi[0], hi[0])), out);
}

// Alternatives for the magnitudes lo..hi (0 <= lo <= hi).
void magnitudes(GrammarBuilder& b, std::uint64_t lo, std::uint64_t hi, const Sequence& prefix, std::vector<Sequence>& out) {
    std::uint64_t width_first = 0, width_last = 9;  // the numbers with `width` digits
    for (std::size_t width = 1; width <= 20 && width_first <= hi; ++width) {
        const std::uint64_t first = std::max(lo, width_first), last = std::min(hi, width_last);
        if (first <= last) same_length(b, std::to_string(first), std::to_string(last), prefix, out);
        if (width_last > UINT64_MAX / 10) break;
        width_first = width_last + 1;
        width_last = width_last * 10 + 9;
    }
}

}  // namespace

Symbol integer_range(GrammarBuilder& b, std::optional<std::int64_t> min, std::optional<std::int64_t> max) {
    const std::int64_t lo = min.value_or(-static_cast<std::int64_t>(kLargest));
    const std::int64_t hi = max.value_or(static_cast<std::int64_t>(kLargest));
    check(lo <= hi, "integer range [{}, {}] is empty", lo, hi);
    std::vector<Sequence> alternatives;
    if (lo < 0) {
        // Negative numbers: "-" and a magnitude in [max(1, -hi), -lo].
        const std::uint64_t m_lo = hi < 0 ? static_cast<std::uint64_t>(-(hi + 1)) + 1 : 1;
        const std::uint64_t m_hi = static_cast<std::uint64_t>(-(lo + 1)) + 1;
        magnitudes(b, m_lo, m_hi, b.literal("-"), alternatives);
    }
    if (hi >= 0) magnitudes(b, static_cast<std::uint64_t>(std::max<std::int64_t>(lo, 0)), static_cast<std::uint64_t>(hi), {}, alternatives);
    return b.rule("integer", std::move(alternatives));
}

}  // namespace forge::llm::grammar
