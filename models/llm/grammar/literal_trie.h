// A choice among literal strings (a JSON Schema enum) as a trie of rules: the alternatives
// that share a prefix share its symbols, so the matcher follows one path however many values
// there are. Alternatives written side by side opened one parse stack per value at the first
// byte, and a 3 MB enum took minutes to match.
#pragma once

#include "models/llm/grammar/grammar.h"

#include <string>
#include <vector>

namespace forge::llm::grammar {

// A rule matching exactly the strings of `texts` (duplicates allowed; at least one). Costs one
// symbol per byte of the trie, counted against kMaxElements before anything is built.
Symbol literal_choice(GrammarBuilder& builder, const std::vector<std::string>& texts);

}  // namespace forge::llm::grammar
