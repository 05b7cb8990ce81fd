// A draft model for speculative decoding (--model-draft SMALL.gguf): a smaller or lower-bit
// model with the target's vocabulary that guesses the next few tokens, one cheap forward pass
// each, for the target to check in one pass (models/llm/speculator.h). The common pairing is a
// model drafted by its own lower-bit file (an f16 target, its Q8_0 or Q4_0 as the draft).
//
// ModelDrafter runs the draft model as its own sequence: its own Session (KV cache) per
// target sequence, kept in step with the text the target accepted. It remembers which tokens
// its cache holds; before each draft it rolls the cache back to the longest prefix shared with
// the accepted text (rejected guesses go) and evaluates what it lacks (the tokens the target
// chose instead), then guesses. Each guess is a draw from the draft's own distribution q (the
// target's sampling options, no penalties; greedy: its argmax), which the target's verification
// needs for the speculative-sampling rule (Sampler::sample_against).
#pragma once

#include "models/llm/model.h"
#include "models/llm/sampler.h"
#include "models/llm/session.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace forge::llm {

struct DraftModel {
    std::string path;
    Model model;
    Tokenizer tokenizer;

    static std::shared_ptr<const DraftModel> load(const std::string& path);
};

// Throws an Error naming both files and the first difference unless the draft's vocabulary is
// the target's: the same tokens with the same texts, and as many logits per position.
void check_same_vocabulary(const Model& target, const Tokenizer& target_tokenizer, const DraftModel& draft);

class ModelDrafter {
public:
    // `capacity`: the most tokens the sequence holds (the target's context). `min_p`: stop
    // drafting when the draft's most likely next token has a probability below it (llama.cpp's
    // --draft-p-min; 0: never).
    ModelDrafter(std::shared_ptr<const DraftModel> draft, std::int64_t capacity, float min_p);

    // A new generation after `prompt`, sampled with `sampling` (its seed also seeds the draft's draws).
    void reset(std::span<const std::int32_t> prompt, const SamplerOptions& sampling);
    void push(std::int32_t token);  // one more token of the accepted text

    // Up to `max` guesses into `draft` (cleared first).
    void propose(std::size_t max, std::vector<std::int32_t>& draft);
    // The distribution guess i was drawn from, sorted by token id (empty when greedy).
    std::span<const Sampler::Candidate> distribution(std::size_t i) const { return q_[i]; }

private:
    std::span<const float> catch_up();
    std::int32_t guess(std::span<const float> logits, std::size_t i);

    std::shared_ptr<const DraftModel> draft_;
    Session session_;
    float min_p_;
    std::vector<std::int32_t> text_;    // the accepted text: prompt and generated tokens
    std::vector<std::int32_t> cached_;  // the tokens the draft's cache holds
    std::unique_ptr<Sampler> sampler_;  // the draft's distribution q
    std::mt19937_64 rng_;               // the draft's draws from q
    std::vector<std::vector<Sampler::Candidate>> q_;  // one per guess of the latest draft
};

}  // namespace forge::llm
