// Helpers shared by the grammar tests.
#pragma once

#include "models/llm/grammar/grammar.h"

#include <memory>
#include <string>

namespace forge::llm::grammar {

// Samples from random logits under a GrammarConstraint on the real Qwen3 vocabulary until an
// end-of-generation token (or `limit` tokens); returns the text, `ended` whether it ended.
std::string random_constrained(const std::shared_ptr<const Grammar>& g, unsigned seed, int limit, bool& ended);

}  // namespace forge::llm::grammar
