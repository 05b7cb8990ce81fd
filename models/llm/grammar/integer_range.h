// Decimal integers within bounds as a grammar: the digit strings of [min, max], built digit by
// digit (the classic range-to-regex construction: a range of same-length numbers is its first
// digit's cases: the low edge, a full middle, the high edge). JSON Schema's minimum/maximum
// on integers compile to this; unbounded sides stop at kMaxIntegerDigits digits, which keeps
// every number finite.
#pragma once

#include "models/llm/grammar/grammar.h"

#include <cstdint>
#include <optional>

namespace forge::llm::grammar {

constexpr int kMaxIntegerDigits = 16;

// Integers n with min <= n <= max (a missing side is unbounded), without leading zeros; a
// negative number is "-" then its magnitude. Throws forge::Error when the range is empty.
Symbol integer_range(GrammarBuilder& builder, std::optional<std::int64_t> min, std::optional<std::int64_t> max);

}  // namespace forge::llm::grammar
