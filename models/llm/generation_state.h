// One request's decoding, independent of who runs the forward passes: from the logits after
// each evaluated token it samples the next token (the request's own sampler), decides whether
// to go on (end-of-generation token, stop string, max tokens), and turns the tokens into text
// pieces that are safe to stream: whole UTF-8 characters, never any part of a stop string.
// The single-sequence SequenceGenerator (models/llm/sequence_generator.h) and the Scheduler
// (models/llm/scheduler.h) both drive it.
#pragma once

#include "models/llm/sampler.h"
#include "models/llm/stop_strings.h"
#include "models/llm/token_constraint.h"
#include "models/llm/tokenizer/token_stream_decoder.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace forge::llm {

// One generated token's log-probability and its most likely alternatives (OpenAI's `logprobs`),
// from the log-softmax of the logits the sampler sees (after logit_bias and any constraint,
// before penalties, truncation and temperature): the model's own distribution.
struct TokenLogprob {
    std::int32_t id = -1;
    float logprob = 0.0f;
    std::vector<std::pair<std::int32_t, float>> top;  // most likely first
};

struct GenerationOptions {
    SamplerOptions sampling;
    std::int64_t max_tokens = -1;   // most tokens generated; < 0: until the end or the context is full
    std::vector<std::string> stop;  // stop strings
    // Optional: which tokens may come next (models/llm/token_constraint.h). It holds one
    // generation's state, so give every generation a new one.
    std::shared_ptr<TokenConstraint> constraint;
    // Added to the logits of these tokens before sampling (OpenAI's logit_bias; -inf bans one).
    std::vector<std::pair<std::int32_t, float>> logit_bias;
    // Optional: called with each generated token's TokenLogprob (top_logprobs alternatives),
    // before the text piece of that token is handed out.
    std::function<void(const TokenLogprob&)> logprob_sink;
    std::int32_t top_logprobs = 0;
};

enum class FinishReason {
    EndOfGeneration,  // the model produced an end-of-generation token
    StopString,
    MaxTokens,
    ContextFull,
    Cancelled,
};

// "stop", "length", ... as OpenAI names them (stop for EndOfGeneration and StopString).
const char* finish_reason_name(FinishReason reason);

// Token counts and times of one request.
struct GenerationStats {
    std::int64_t prompt_tokens = 0;     // the whole prompt
    std::int64_t cached_tokens = 0;     // of those, already in the KV cache (not evaluated)
    std::int64_t generated_tokens = 0;  // tokens sampled and kept (EOG and stop tokens excluded)
    double prompt_s = 0, generate_s = 0;
    // Speculative decoding (models/llm/speculator.h): guessed tokens scored, and of those kept.
    std::int64_t drafted_tokens = 0, accepted_tokens = 0;
    FinishReason finish = FinishReason::EndOfGeneration;
};

// A draft model's guess at the next token and the distribution it was drawn from (sorted by
// id; empty when greedy): speculative sampling checks it (Sampler::sample_against).
struct DraftGuess {
    std::int32_t id;
    std::span<const Sampler::Candidate> distribution;
};

// Called with each safe piece of text; return false to cancel the generation.
using TextSink = std::function<bool(std::string_view)>;

class GenerationState {
public:
    // `sampler` belongs to the caller (a chat keeps one across turns; a server request has its own).
    GenerationState(const Tokenizer& tokenizer, const GenerationOptions& options, Sampler& sampler);

    // The logits after the last evaluated token -> the next token to evaluate, or nothing when
    // the generation is over (finished() says why). `piece` receives the text that is now safe
    // to show (often empty: held back until a character or a possible stop string completes).
    // With a draft model's `guess`, the token is chosen by the speculative-sampling rule: the
    // same distribution.
    std::optional<std::int32_t> next(std::span<const float> logits, std::string& piece, const DraftGuess* guess = nullptr);
    // End the generation early (context full, cancelled); `piece` receives the text held back,
    // if the reason lets it be shown.
    void finish(FinishReason reason, std::string& piece);

    bool finished() const { return finish_.has_value(); }
    FinishReason finish_reason() const { return finish_.value_or(FinishReason::EndOfGeneration); }
    std::int64_t generated() const { return generated_; }
    const std::vector<std::int32_t>& tokens() const { return tokens_; }  // generated so far

private:
    void end(FinishReason reason, std::string& piece);
    std::span<const float> adjusted(std::span<const float> logits);  // logit_bias and the constraint's mask applied
    void report_logprob(std::span<const float> logits, std::int32_t id);

    const Tokenizer& tokenizer_;
    std::int64_t max_tokens_;
    Sampler& sampler_;
    std::shared_ptr<TokenConstraint> constraint_;
    std::vector<std::pair<std::int32_t, float>> logit_bias_;
    std::function<void(const TokenLogprob&)> logprob_sink_;
    std::int32_t top_logprobs_;
    std::vector<float> adjusted_;        // the logits after logit_bias and the constraint's mask
    std::vector<std::int32_t> order_;    // scratch for the top alternatives
    TokenLogprob logprob_;
    TokenStreamDecoder decoder_;
    StopStrings stops_;
    std::vector<std::int32_t> tokens_;
    std::int64_t generated_ = 0;
    std::optional<FinishReason> finish_;
};

}  // namespace forge::llm
