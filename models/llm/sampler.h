// Picking the next token from logits: penalties for recent tokens, then the usual filters
// (top-k, top-p, min-p), temperature, and a seeded draw. Temperature 0 is greedy: the highest
// logit after penalties, the lowest id on ties. The same seed and inputs give the same tokens.
//
// The order is llama.cpp's default chain: penalties -> top-k -> top-p -> min-p -> temperature
// -> draw. Everything works in preallocated buffers: sampling allocates nothing.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace forge::llm {

struct SamplerOptions {
    float temperature = 0.8f;
    std::int32_t top_k = 40;          // <= 0: keep all
    float top_p = 0.95f;              // 1: off
    float min_p = 0.05f;              // 0: off
    float repeat_penalty = 1.0f;      // 1: off; divides positive logits, multiplies negative ones
    float frequency_penalty = 0.0f;   // minus this times the token's count in the window
    float presence_penalty = 0.0f;    // minus this once if the token is in the window
    std::int32_t penalty_window = 64; // how many recent tokens the penalties look at
    std::uint64_t seed = 0;
};

class Sampler {
public:
    struct Candidate {
        std::int32_t id;
        float logit;  // after penalties and temperature
        float p;      // the probability of drawing it
    };

    Sampler(const SamplerOptions& options, std::int64_t n_vocab);

    // The next token for `logits` [n_vocab], given the tokens accepted so far: a draw from
    // distribution(logits).
    std::int32_t sample(std::span<const float> logits);
    // The tokens sample() draws from for these logits and their probabilities (temperature 0:
    // the greedy token alone, p = 1). Valid until the next call; consumes no randomness.
    std::span<const Candidate> distribution(std::span<const float> logits);
    // Speculative sampling (Leviathan et al. 2023, Chen et al. 2023): the next token for
    // `logits` when a draft model guessed `guess` by a draw from `guess_distribution` (q, sorted
    // by id). The guess is kept with probability min(1, p(guess) / q(guess)); otherwise the
    // token is a draw from norm(max(0, p - q)), never the guess. Either way it is distributed
    // exactly as sample()'s p. Greedy: sample()'s token.
    std::int32_t sample_against(std::span<const float> logits, std::int32_t guess,
                                std::span<const Candidate> guess_distribution);
    // Record a token (sampled, or part of the prompt) for the penalties.
    void accept(std::int32_t token);
    void reset();  // forget the history; the random stream continues

    const SamplerOptions& options() const { return options_; }

    // A uniform number in [0, 1) from 53 random bits: the same on every platform, unlike
    // std::uniform_real_distribution.
    static double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
    // The candidate at `u` in [0, 1) of their probabilities' running sum (the last one when
    // rounding leaves the sum short of u).
    static std::int32_t pick(std::span<const Candidate> candidates, double u);

private:
    void apply_penalties();
    void keep_top_k(std::size_t k);
    void keep_top_p();
    void keep_min_p();
    void softmax();
    Candidate greedy() const;
    std::int32_t draw();

    SamplerOptions options_;
    std::mt19937_64 rng_;
    std::vector<Candidate> candidates_;  // capacity n_vocab; size = how many survive
    std::vector<std::int32_t> history_;  // ring of the last penalty_window tokens
    std::size_t history_next_ = 0;
    std::size_t history_size_ = 0;
    std::vector<std::int32_t> counted_;  // scratch for penalties: distinct ids in the window
    std::vector<Candidate> residual_;    // sample_against's norm(max(0, p - q))
};

}  // namespace forge::llm
