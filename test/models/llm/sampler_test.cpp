#include "models/llm/sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

namespace forge::llm {
namespace {

SamplerOptions greedy_options() {
    SamplerOptions o;
    o.temperature = 0.0f;
    return o;
}

TEST(Sampler, GreedyPicksTheLargestLogitLowestIdOnTies) {
    Sampler sampler(greedy_options(), 5);
    const std::vector<float> logits = {0.5f, 2.0f, -1.0f, 2.0f, 1.0f};
    EXPECT_EQ(sampler.sample(logits), 1);
}

TEST(Sampler, RepeatPenaltyDividesPositiveAndMultipliesNegativeLogits) {
    SamplerOptions o = greedy_options();
    o.repeat_penalty = 2.0f;
    Sampler sampler(o, 3);
    sampler.accept(0);
    // 3.0 / 2 = 1.5 < 2.0: the repeated token loses.
    EXPECT_EQ(sampler.sample(std::vector<float>{3.0f, 2.0f, -5.0f}), 1);
    sampler.reset();
    EXPECT_EQ(sampler.sample(std::vector<float>{3.0f, 2.0f, -5.0f}), 0);
}

TEST(Sampler, FrequencyAndPresencePenaltiesCountTheWindow) {
    SamplerOptions o = greedy_options();
    o.frequency_penalty = 0.5f;
    o.presence_penalty = 0.25f;
    o.penalty_window = 3;
    Sampler sampler(o, 2);
    for (int i = 0; i < 3; ++i) sampler.accept(0);  // 0 three times: 3 * 0.5 + 0.25 = 1.75
    EXPECT_EQ(sampler.sample(std::vector<float>{2.0f, 0.3f}), 1);
    EXPECT_EQ(sampler.sample(std::vector<float>{2.1f, 0.3f}), 0);
    for (int i = 0; i < 3; ++i) sampler.accept(1);  // the window forgets token 0
    EXPECT_EQ(sampler.sample(std::vector<float>{2.0f, 0.3f}), 0);
}

TEST(Sampler, TopKOneIsGreedy) {
    SamplerOptions o;
    o.top_k = 1;
    o.temperature = 5.0f;
    Sampler sampler(o, 4);
    for (int i = 0; i < 20; ++i) EXPECT_EQ(sampler.sample(std::vector<float>{0.1f, 0.2f, 0.9f, 0.3f}), 2);
}

TEST(Sampler, TopPAndMinPDropTheTail) {
    const std::vector<float> logits = {5.0f, 4.9f, 0.0f, -1.0f};  // p ~ 0.52, 0.47, 0.004, 0.001
    SamplerOptions o;
    o.top_k = 0;
    o.temperature = 1.0f;
    o.min_p = 0.0f;
    o.top_p = 0.9f;
    Sampler top_p(o, 4);
    o.top_p = 1.0f;
    o.min_p = 0.1f;
    Sampler min_p(o, 4);
    for (int i = 0; i < 200; ++i) {
        EXPECT_LT(top_p.sample(logits), 2);
        EXPECT_LT(min_p.sample(logits), 2);
    }
}

TEST(Sampler, SameSeedSameTokensAndFrequenciesFollowTheDistribution) {
    SamplerOptions o;
    o.top_k = 0;
    o.top_p = 1.0f;
    o.min_p = 0.0f;
    o.temperature = 1.0f;
    o.seed = 42;
    Sampler a(o, 3), b(o, 3);
    const std::vector<float> logits = {0.0f, std::log(2.0f), std::log(3.0f)};  // p = 1/6, 2/6, 3/6
    std::map<int, int> counts;
    for (int i = 0; i < 6000; ++i) {
        const int token = a.sample(logits);
        EXPECT_EQ(token, b.sample(logits));
        ++counts[token];
    }
    EXPECT_NEAR(counts[0], 1000, 150);
    EXPECT_NEAR(counts[1], 2000, 200);
    EXPECT_NEAR(counts[2], 3000, 200);
}

TEST(Sampler, RejectsBadOptions) {
    SamplerOptions o;
    o.top_p = 0.0f;
    EXPECT_THROW(Sampler(o, 4), std::exception);
    o = SamplerOptions{};
    o.temperature = -1.0f;
    EXPECT_THROW(Sampler(o, 4), std::exception);
}

}  // namespace
}  // namespace forge::llm
