// What one grammar may cost, and the error for a grammar past it.
//
// Schemas, patterns and tool lists come from strangers (forge serve's requests), and a few
// hundred bytes can ask for a huge grammar (`X{0,99999}` is 100 000 rules) or an ambiguous one
// whose parse state grows with every byte (`(a?){0,6000}` kept one stack per repetition). The
// bounds below keep every compiled grammar small and every matching step cheap; past them the
// request gets a GrammarLimitError, which serve answers with a 400 naming the field and
// `forge chat` with `forge: error:`. Measured values and headroom: docs/GRAMMAR.md, "Limits".
#pragma once

#include "core/error.h"

#include <cstddef>

namespace forge::llm::grammar {

// The largest repetition count: `{n,m}` in a pattern, minLength/maxLength, minItems/maxItems.
// A bounded repetition costs one small rule per count.
inline constexpr int kMaxRepeat = 10000;

// Symbols of one grammar, all rules together, counted as they are defined. A bounded
// repetition costs 4 per count: the 2^18 allow six `{0,10000}` runs; built, that is about
// 3 MB, and building it peaks at about 25 MB (the builder keeps each rule's body and key).
// The largest grammar of the tests (json_object, the bench schema) has under 1000.
inline constexpr std::size_t kMaxElements = std::size_t{1} << 18;

// Parse stacks after one byte (the matcher's state). A JSON Schema grammar has 1-3; a pattern
// like `a{0,100}a{0,100}` about 100. Each stack costs a cached token mask per step.
inline constexpr std::size_t kMaxStacks = 1024;

// Expansion steps (a rule entered or left without consuming) while advancing over one byte;
// it bounds a step's time where many stacks share one ambiguous rule.
inline constexpr std::size_t kMaxExpansionSteps = std::size_t{1} << 20;

// A grammar past one of the bounds above, or one that could loop without consuming input: the
// input (schema, pattern, tools) asked for it, so it is the caller's error, not the server's.
class GrammarLimitError : public Error {
public:
    using Error::Error;
};

}  // namespace forge::llm::grammar
