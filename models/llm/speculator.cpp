#include "models/llm/speculator.h"

#include "core/error.h"

#include <algorithm>

namespace forge::llm {

SpecMode spec_mode_from_name(const std::string& name) {
    if (name == "off") return SpecMode::Off;
    if (name == "lookup") return SpecMode::Lookup;
    if (name == "draft") return SpecMode::Draft;
    throw Error(fmt::format("--spec must be off, lookup or draft, not '{}'", name));
}

void check_draft_vocabulary(const Model& target, const Tokenizer& target_tokenizer, const SpeculationOptions& options) {
    if (options.mode == SpecMode::Draft && options.draft_model)
        check_same_vocabulary(target, target_tokenizer, *options.draft_model);
}

Speculator::Speculator(const SpeculationOptions& options, std::int64_t capacity)
    : options_(options), drafter_(options.lookup, options.mode == SpecMode::Lookup ? capacity : 0) {
    check(!active() || (options.draft_max >= 1 && options.draft_max <= kMaxDraft), "--draft-max must be 1 to {}, got {}",
          kMaxDraft, options.draft_max);
    if (options.mode == SpecMode::Draft) {
        check(options.draft_model != nullptr, "--spec draft needs --model-draft");
        model_drafter_ = std::make_unique<ModelDrafter>(options.draft_model, capacity, options.draft_min_p);
    }
    draft_.reserve(static_cast<std::size_t>(max_rows()));
    piece_.reserve(64);
}

void Speculator::start(std::span<const std::int32_t> prompt, const SamplerOptions& sampling) {
    drafted_ = accepted_ = 0;
    draft_.clear();
    if (!active()) return;
    if (model_drafter_) {
        model_drafter_->reset(prompt, sampling);
    } else {
        drafter_.reset(prompt);
    }
    limit_ = options_.draft_max;
    misses_ = paused_ = unpaid_ = 0;
    pass_start_ = {};
    plain_pass_s_ = drafted_pass_s_ = drafted_pass_tokens_ = 0;
}

std::span<const std::int32_t> Speculator::draft(std::int32_t pending, std::int64_t room) {
    draft_.clear();
    if (!active()) return {};
    pass_start_ = std::chrono::steady_clock::now();
    push(pending);
    if (paused_ > 0) {
        --paused_;
        return {};
    }
    const std::int64_t max = std::min(limit_, room);
    if (max <= 0) return draft_;
    if (model_drafter_) {
        model_drafter_->propose(static_cast<std::size_t>(max), draft_);
    } else {
        drafter_.propose(static_cast<std::size_t>(max), draft_);
    }
    return draft_;
}

void Speculator::push(std::int32_t token) {
    if (model_drafter_) {
        model_drafter_->push(token);
    } else {
        drafter_.push(token);
    }
}

// Row i holds the target's logits after the pending token and the first i draft tokens, so
// GenerationState::next(row i) is exactly the step decoding without speculation would take
// there, as long as every earlier draft token was the token it chose: the same logits (each
// row's bits do not depend on the batch, core/infer/linear.h), the same sampler history,
// constraint state and random stream. The walk stops at the first row whose chosen token is
// not the next draft token: that token becomes the pending one, and the drafts after it
// (their KV rows and logits computed on a text that did not happen) are dropped.
//
// Why this is the speculative-sampling rule (Leviathan et al. 2023, Chen et al. 2023) for a
// drafter that proposes one token d with certainty, i.e. a draft distribution q = 1[x = d]:
// the rule accepts d with probability min(1, p(d) / q(d)) = p(d), and on rejection samples
// from norm(max(0, p - q)), which is p with d removed, renormalised: p(x) / (1 - p(d)) for
// x != d. Drawing x ~ p and accepting when x == d does exactly that: P(accept) = p(d), and
// given x != d, x is distributed as p(x) / (1 - p(d)). The output is distributed as p in both
// readings — and drawing first, with the sampler's own random stream, makes it the very
// token the plain decoder draws with that seed, which is what the tests compare. (A drafter
// with a real distribution q, a draft model, gets the general rule: Sampler::sample_against.)
Verdict Speculator::verify(GenerationState& generation, std::span<const float> logits, const TextSink& emit) {
    const std::size_t rows = draft_.size() + 1;
    check(!logits.empty() && logits.size() % rows == 0, "verify: {} logits are not {} rows", logits.size(), rows);
    const std::size_t n_vocab = logits.size() / rows;
    Verdict verdict;
    for (std::size_t i = 0; i < rows; ++i) {
        const std::span<const float> row = logits.subspan(i * n_vocab, n_vocab);
        if (model_drafter_ && i < draft_.size()) {
            const DraftGuess guess{draft_[i], model_drafter_->distribution(i)};
            verdict.next = generation.next(row, piece_, &guess);
        } else {
            verdict.next = generation.next(row, piece_);
        }
        verdict.cancelled = !piece_.empty() && !emit(piece_);
        if (!verdict.next || verdict.cancelled || i == draft_.size() || *verdict.next != draft_[i]) break;
        ++verdict.accepted;
        push(*verdict.next);
    }
    adapt(draft_.size(), static_cast<std::size_t>(verdict.accepted));
    if (active() && options_.weigh_cost) weigh(draft_.size(), static_cast<std::size_t>(verdict.accepted));
    draft_.clear();
    return verdict;
}

// A fully accepted draft lets the next one grow back (doubling) to --draft-max; a partly
// accepted one sets it to one past what was accepted; one rejected at its first token pauses
// drafting for 2, 4, ... 64 tokens, so a text with nothing worth looking up pays for a wrong
// guess rarely.
void Speculator::adapt(std::size_t drafted, std::size_t accepted) {
    if (drafted == 0) return;
    drafted_ += static_cast<std::int64_t>(drafted);
    accepted_ += static_cast<std::int64_t>(accepted);
    const auto kept = static_cast<std::int64_t>(accepted);
    if (accepted == drafted) {
        limit_ = std::min(options_.draft_max, std::max<std::int64_t>(limit_, 1) * 2);
    } else {
        limit_ = std::clamp<std::int64_t>(kept + 1, 1, options_.draft_max);
    }
    if (accepted == 0) {
        misses_ = std::min<std::int64_t>(misses_ + 1, 6);
        paused_ = std::int64_t{1} << misses_;
    } else {
        misses_ = 0;
    }
}

// The pass just verified (drafting, the forward pass, sampling: all since draft()) joins the
// running means; a drafted pass is worth it when it yields more tokens than plain passes would
// in the same time. When it is not, drafting pauses as after a miss (2, 4, ... 64 tokens), and
// the plain passes meanwhile keep their mean current.
void Speculator::weigh(std::size_t drafted, std::size_t accepted) {
    if (pass_start_ == std::chrono::steady_clock::time_point{}) return;  // the prompt's pass: not one of ours
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - pass_start_).count();
    pass_start_ = {};
    const auto mean = [](double& m, double x) { m = m == 0 ? x : 0.75 * m + 0.25 * x; };
    if (drafted == 0) {
        mean(plain_pass_s_, seconds);
        return;
    }
    mean(drafted_pass_s_, seconds);
    mean(drafted_pass_tokens_, static_cast<double>(accepted + 1));
    if (plain_pass_s_ > 0 && drafted_pass_tokens_ * plain_pass_s_ < drafted_pass_s_) {
        unpaid_ = std::min<std::int64_t>(unpaid_ + 1, 6);
        paused_ = std::max(paused_, std::int64_t{1} << unpaid_);
    } else {
        unpaid_ = 0;
    }
}

}  // namespace forge::llm
