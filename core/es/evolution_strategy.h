// OpenAI-style evolution strategies (Salimans et al., "Evolution Strategies as a Scalable
// Alternative to Reinforcement Learning", 2017): estimate the gradient of the expected
// reward from rewards of Gaussian perturbations of the parameters.
//
// The noise is never stored. Member m's perturbation at iteration t is element-wise
// normal(stream_key(seed, t, pair), i) (core/random/counter_rng.h), regenerated wherever it
// is needed: when building the member's parameters and again when forming the estimate.
// With antithetic sampling, members 2k and 2k+1 use +ε and -ε of the same draw.
//
// Determinism: every element of the estimate sums the members in member order on one
// thread, and the rewards come from independent evaluations, so the update is bitwise
// identical for any thread count.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace forge::es {

struct EsOptions {
    int population = 64;      // members per iteration (even when antithetic)
    float sigma = 0.05f;      // noise scale
    bool antithetic = true;
    std::uint64_t seed = 0;
};

class EvolutionStrategy {
public:
    EvolutionStrategy(std::int64_t dimension, const EsOptions& options);

    int population() const { return options_.population; }
    std::int64_t dimension() const { return dimension_; }

    // theta + sigma * ε(member) for `iteration`, written to out (size dimension()).
    void perturbed(std::span<const float> theta, std::int64_t iteration, int member, std::span<float> out) const;

    // The ascent direction (1 / (n σ)) Σ_m z_m ε_m from one reward per member, where z are
    // the rewards z-scored over the population (mean 0, standard deviation 1).
    std::vector<float> gradient(std::span<const float> rewards, std::int64_t iteration) const;

private:
    float noise(std::int64_t iteration, int member, std::int64_t element) const;

    std::int64_t dimension_;
    EsOptions options_;
};

// Rewards shifted and scaled to mean 0 and standard deviation 1 (all 0 if they are equal).
std::vector<float> z_scores(std::span<const float> rewards);

}  // namespace forge::es
