// A rule on which tokens may come next: a grammar, a JSON schema, a forced tool call. Before each
// sample the GenerationState asks the constraint to mask the logits of the tokens that may not follow,
// then tells it the token that was chosen, so the constraint can advance its parse state.
//
// One object per generation: it holds that generation's state. Implementations must leave at
// least one token allowed at every step (an end-of-generation token where the constrained text
// is complete), so a constrained generation always has somewhere to go.
#pragma once

#include <cstdint>
#include <span>

namespace forge::llm {

class TokenConstraint {
public:
    virtual ~TokenConstraint() = default;

    // Set the logit of every token that may not come next to -infinity. End-of-generation tokens
    // stay allowed only where the text so far is complete.
    virtual void mask(std::span<float> logits) = 0;
    // The token the sampler chose from the masked logits (never an end-of-generation token:
    // the generation ends there).
    virtual void accept(std::int32_t token) = 0;
};

}  // namespace forge::llm
