// The spirals task end to end, shrunk to keep the suite fast (200 points,
// fewer steps than the CLI defaults): gradient optimizers reach 99% training accuracy, ES
// makes clear progress, and a run is reproducible from its seed.
#include "models/spirals/spirals_data.h"
#include "models/spirals/spirals_train.h"

#include <gtest/gtest.h>

namespace forge::spirals {
namespace {

TEST(Spirals, DataIsBalancedAndSeeded) {
    const SpiralsData a = make_spirals(50, 3), b = make_spirals(50, 3);
    EXPECT_EQ(a.points.to_vector(), b.points.to_vector());
    std::int64_t ones = 0;
    for (std::int64_t label : a.labels.span<std::int64_t>()) ones += label;
    EXPECT_EQ(ones, 50);
}

TEST(Spirals, AdamWReaches99Percent) {
    const TrainResult r = train({.method = Method::AdamW, .steps = 300, .per_class = 100});
    EXPECT_GE(r.accuracy, 0.99f);
}

TEST(Spirals, MuonReaches99Percent) {
    const TrainResult r = train({.method = Method::Muon, .steps = 250, .per_class = 100});
    EXPECT_GE(r.accuracy, 0.99f);
}

TEST(Spirals, SgdReaches99Percent) {
    const TrainResult r = train({.method = Method::Sgd, .steps = 800, .per_class = 100});
    EXPECT_GE(r.accuracy, 0.99f);
}

TEST(Spirals, EsLearns) {
    const TrainResult r = train({.method = Method::Es, .steps = 40, .hidden = 16, .per_class = 50});
    EXPECT_GE(r.accuracy, 0.6f);
}

TEST(Spirals, SameSeedSameResult) {
    const TrainResult a = train({.method = Method::AdamW, .steps = 20, .seed = 4, .hidden = 16, .per_class = 50});
    const TrainResult b = train({.method = Method::AdamW, .steps = 20, .seed = 4, .hidden = 16, .per_class = 50});
    EXPECT_EQ(a.loss, b.loss);
}

}  // namespace
}  // namespace forge::spirals
