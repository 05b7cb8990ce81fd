// Speculative decoding for one sequence: guess a few tokens ahead (a drafter: n-gram lookup,
// models/llm/lookup_drafter.h, or a draft model, models/llm/draft_model.h), score the
// pending token and the guesses in one forward pass (k + 1 rows, read like a prompt chunk: one
// pass over the weights for all of them), keep the longest prefix of guesses the model itself
// would have produced, and roll the KV cache back past the first one it would not. Decoding
// is bound by reading the weights, so every accepted guess is a token for (almost) free.
//
// Lossless: the tokens are the ones decoding without speculation gives, bit for bit, greedy
// or sampled with the same seed (see verify() for why sampling stays exact; a draft model's
// guesses are checked by the general speculative-sampling rule, the same distribution though
// not the same draws). Adaptive: after
// a guess that was wrong from its first token, or while drafted passes yield fewer tokens than
// plain passes would in their time (measured), drafting pauses for a while (doubling up to 64
// tokens), and a partly wrong guess shortens the next one, so text with nothing to look up
// costs about what it did without speculation.
//
// The caller runs the forward passes (SequenceGenerator on a Session, the Scheduler on a slot
// of its shared cache): draft() -> evaluate [pending, draft...] wanting every row's logits ->
// verify() -> truncate the cache to what verify() kept.
#pragma once

#include "models/llm/draft_model.h"
#include "models/llm/generation_state.h"
#include "models/llm/lookup_drafter.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace forge::llm {

enum class SpecMode { Off, Lookup, Draft };

// "off", "lookup" or "draft" (the --spec option); anything else is an error naming the option.
SpecMode spec_mode_from_name(const std::string& name);

inline constexpr std::int64_t kMaxDraft = 128;  // --draft-max at most

struct SpeculationOptions {
    SpecMode mode = SpecMode::Off;
    std::int64_t draft_max = 16;  // most guessed tokens per pass
    LookupOptions lookup;
    // --spec draft: the draft model (its vocabulary checked against the target's by
    // check_draft_vocabulary) and the probability its most likely guess needs to be drafted.
    std::shared_ptr<const DraftModel> draft_model;
    float draft_min_p = 0.0f;
    // Pause drafting while the measured passes say it does not pay: when the tokens a drafted
    // pass yields, times a plain pass's time, fall short of a drafted pass's time (an f16 model
    // takes 2-3x as long for 2 rows as for 1 on this CPU, a Q8_0 one about as long). Off for
    // drafts that depend only on the tokens (the tests compare them).
    bool weigh_cost = true;
};

// What one verification decided.
struct Verdict {
    std::int64_t accepted = 0;         // draft tokens kept: their KV rows stay, the rest go
    std::optional<std::int32_t> next;  // the token to evaluate next; none when the generation ended
    bool cancelled = false;            // the text sink asked to stop (then `next` is not evaluated)
};

// Throws an Error naming the files unless --spec draft's model shares the target's vocabulary.
void check_draft_vocabulary(const Model& target, const Tokenizer& target_tokenizer, const SpeculationOptions& options);

class Speculator {
public:
    // `capacity`: the most tokens a sequence holds (its context).
    Speculator(const SpeculationOptions& options, std::int64_t capacity);

    bool active() const { return options_.mode != SpecMode::Off; }
    // Rows one verification pass may hold: the pending token and a full draft.
    static std::int64_t max_rows(const SpeculationOptions& options) {
        return options.mode != SpecMode::Off ? 1 + options.draft_max : 1;
    }
    std::int64_t max_rows() const { return max_rows(options_); }

    // A new generation after `prompt`, sampled with `sampling` (the counts start again).
    void start(std::span<const std::int32_t> prompt, const SamplerOptions& sampling);
    // The guesses to evaluate after `pending` (which joins the text), at most `room` of them:
    // valid until the next call. Empty when off, when nothing matches or while paused.
    std::span<const std::int32_t> draft(std::int32_t pending, std::int64_t room);
    // `logits`: one row after the pending token and one after each draft token, in order. Hands
    // each kept token's text to `emit` (false cancels) through `generation`.
    Verdict verify(GenerationState& generation, std::span<const float> logits, const TextSink& emit);

    std::int64_t drafted() const { return drafted_; }    // guessed tokens scored so far
    std::int64_t accepted() const { return accepted_; }  // of those, kept

private:
    void push(std::int32_t token);  // one more token of the text, to the drafter
    void adapt(std::size_t drafted, std::size_t accepted);
    void weigh(std::size_t drafted, std::size_t accepted);

    SpeculationOptions options_;
    LookupDrafter drafter_;
    std::unique_ptr<ModelDrafter> model_drafter_;  // --spec draft
    std::vector<std::int32_t> draft_;
    std::string piece_;
    std::int64_t limit_ = 0;      // the next draft's most tokens
    std::int64_t misses_ = 0;     // drafts in a row rejected from their first token
    std::int64_t paused_ = 0;     // tokens to decode before drafting again
    std::int64_t unpaid_ = 0;     // drafted passes in a row that did not pay for their time
    std::int64_t drafted_ = 0, accepted_ = 0;
    // Running means (exponential, weight 1/4) of a pass's seconds without and with a draft, and
    // of the tokens a drafted pass yields; 0 until measured.
    std::chrono::steady_clock::time_point pass_start_;
    double plain_pass_s_ = 0, drafted_pass_s_ = 0, drafted_pass_tokens_ = 0;
};

}  // namespace forge::llm
