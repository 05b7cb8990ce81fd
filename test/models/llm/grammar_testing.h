// Helpers shared by the grammar tests.
#pragma once

#include "models/llm/grammar/grammar.h"
#include "models/llm/grammar/matcher.h"

#include <memory>
#include <string>
#include <string_view>

namespace forge::llm::grammar {

// Whether `text` is a whole sentence of `g`.
inline bool matches(const std::shared_ptr<const Grammar>& g, std::string_view text) {
    Matcher m(g);
    return m.accept(text) && m.complete();
}

// Samples from random logits under a GrammarConstraint on the real Qwen3 vocabulary until an
// end-of-generation token (or `limit` tokens); returns the text, `ended` whether it ended.
std::string random_constrained(const std::shared_ptr<const Grammar>& g, unsigned seed, int limit, bool& ended);

}  // namespace forge::llm::grammar
