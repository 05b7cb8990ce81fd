#include "core/es/evolution_strategy.h"

#include "core/error.h"
#include "core/random/counter_rng.h"
#include "core/thread_pool.h"

#include <cmath>

namespace forge::es {
namespace {

constexpr std::int64_t kElementGrain = 1 << 10;

}  // namespace

EvolutionStrategy::EvolutionStrategy(std::int64_t dimension, const EsOptions& options)
    : dimension_(dimension), options_(options) {
    check(options.population >= 2, "ES population must be at least 2, got {}", options.population);
    check(!options.antithetic || options.population % 2 == 0, "antithetic ES needs an even population, got {}",
          options.population);
    check(options.sigma > 0.0f, "ES sigma must be positive, got {}", options.sigma);
}

float EvolutionStrategy::noise(std::int64_t iteration, int member, std::int64_t element) const {
    const int draw = options_.antithetic ? member / 2 : member;
    const float sign = options_.antithetic && member % 2 == 1 ? -1.0f : 1.0f;
    const std::uint64_t key = random::stream_key(options_.seed, static_cast<std::uint64_t>(iteration),
                                                 static_cast<std::uint64_t>(draw));
    return sign * random::normal(key, static_cast<std::uint64_t>(element));
}

void EvolutionStrategy::perturbed(std::span<const float> theta, std::int64_t iteration, int member,
                                  std::span<float> out) const {
    for (std::int64_t i = 0; i < dimension_; ++i) {
        const auto k = static_cast<std::size_t>(i);
        out[k] = theta[k] + options_.sigma * noise(iteration, member, i);
    }
}

std::vector<float> EvolutionStrategy::gradient(std::span<const float> rewards, std::int64_t iteration) const {
    check(static_cast<int>(rewards.size()) == options_.population, "ES: {} rewards for a population of {}",
          rewards.size(), options_.population);
    const std::vector<float> z = z_scores(rewards);
    const float scale = 1.0f / (static_cast<float>(options_.population) * options_.sigma);
    std::vector<float> g(static_cast<std::size_t>(dimension_));
    ThreadPool::global().parallel_for(dimension_, kElementGrain, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
            float sum = 0.0f;
            for (int m = 0; m < options_.population; ++m) sum += z[static_cast<std::size_t>(m)] * noise(iteration, m, i);
            g[static_cast<std::size_t>(i)] = sum * scale;
        }
    });
    return g;
}

std::vector<float> z_scores(std::span<const float> rewards) {
    double mean = 0.0;
    for (float r : rewards) mean += r;
    mean /= static_cast<double>(rewards.size());
    double variance = 0.0;
    for (float r : rewards) variance += (r - mean) * (r - mean);
    const double stddev = std::sqrt(variance / static_cast<double>(rewards.size()));
    std::vector<float> z(rewards.size(), 0.0f);
    if (stddev == 0.0) return z;
    for (std::size_t i = 0; i < rewards.size(); ++i) z[i] = static_cast<float>((rewards[i] - mean) / stddev);
    return z;
}

}  // namespace forge::es
