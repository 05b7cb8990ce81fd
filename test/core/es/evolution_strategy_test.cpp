// Evolution strategies: noise regenerated identically, antithetic pairs, z-scoring, an
// estimate that points uphill, and an update bitwise identical for any thread count.
#include "core/es/evolution_strategy.h"

#include "core/thread_pool.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace forge::es {
namespace {

TEST(Es, NoiseIsRegeneratedNotStored) {
    const EvolutionStrategy es(100, {.population = 8, .sigma = 0.1f, .seed = 7});
    const std::vector<float> theta(100, 0.0f);
    std::vector<float> a(100), b(100);
    es.perturbed(theta, 3, 5, a);
    es.perturbed(theta, 3, 5, b);
    EXPECT_EQ(a, b);
    es.perturbed(theta, 4, 5, b);  // another iteration: other noise
    EXPECT_NE(a, b);
}

TEST(Es, AntitheticMembersMirrorEachOther) {
    const EvolutionStrategy es(50, {.population = 4, .sigma = 0.5f, .antithetic = true, .seed = 1});
    const std::vector<float> theta(50, 0.0f);
    std::vector<float> plus(50), minus(50);
    es.perturbed(theta, 0, 2, plus);
    es.perturbed(theta, 0, 3, minus);
    for (std::size_t i = 0; i < 50; ++i) EXPECT_EQ(plus[i], -minus[i]);
}

TEST(Es, ZScoresHaveMeanZeroAndUnitDeviation) {
    const std::vector<float> rewards = {1, 2, 3, 4, 10};
    const auto z = z_scores(rewards);
    const double mean = std::accumulate(z.begin(), z.end(), 0.0) / 5;
    double var = 0;
    for (float v : z) var += (v - mean) * (v - mean);
    EXPECT_NEAR(mean, 0.0, 1e-6);
    EXPECT_NEAR(var / 5, 1.0, 1e-5);
    EXPECT_EQ(z_scores(std::vector<float>{3, 3, 3}), (std::vector<float>{0, 0, 0}));
}

// Reward -|theta - target|^2: the estimate should point from theta toward the target.
std::vector<float> estimate(int threads) {
    ThreadPool::set_global_threads(threads);
    const std::int64_t n = 3000;  // several parallel chunks
    const EvolutionStrategy es(n, {.population = 32, .sigma = 0.1f, .seed = 11});
    const std::vector<float> theta(static_cast<std::size_t>(n), 0.0f);
    std::vector<float> rewards(32), candidate(static_cast<std::size_t>(n));
    for (int m = 0; m < 32; ++m) {
        es.perturbed(theta, 9, m, candidate);
        double r = 0;
        for (float v : candidate) r -= (v - 1.0) * (v - 1.0);
        rewards[static_cast<std::size_t>(m)] = static_cast<float>(r);
    }
    return es.gradient(rewards, 9);
}

TEST(Es, UpdateIsBitwiseIdenticalForAnyThreadCount) {
    const int original = ThreadPool::global().size();
    const auto one = estimate(1);
    const auto two = estimate(2);
    const auto five = estimate(5);
    ThreadPool::set_global_threads(original);
    EXPECT_EQ(one, two);
    EXPECT_EQ(one, five);
    // And it points uphill: toward the target 1 from theta = 0.
    EXPECT_GT(std::accumulate(one.begin(), one.end(), 0.0), 0.0);
}

}  // namespace
}  // namespace forge::es
