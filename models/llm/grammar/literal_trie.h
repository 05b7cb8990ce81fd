// A choice among literal strings (a JSON Schema enum) as a trie of rules: the alternatives
// that share a prefix share its symbols, so the matcher follows one path however many values
// there are. Alternatives written side by side opened one parse stack per value at the first
// byte, and a 3 MB enum took minutes to match.
#pragma once

#include "models/llm/grammar/grammar.h"

#include <cstddef>
#include <string>
#include <vector>

namespace forge::llm::grammar {

// The values' bytes together: the trie is built whole first (a node per byte, ~40 bytes each).
inline constexpr std::size_t kMaxChoiceBytes = std::size_t{1} << 20;

// A rule matching exactly the strings of `texts` (duplicates allowed; at least one), at most
// kMaxChoiceBytes of them. Identical subtrees share their rules, so the symbols, counted
// against kMaxElements, are often far fewer than the bytes.
Symbol literal_choice(GrammarBuilder& builder, const std::vector<std::string>& texts);

}  // namespace forge::llm::grammar
