// The spirals task end to end, shortened to keep the suite fast: gradient optimizers reach
// 99% training accuracy, ES makes clear progress, and a run is reproducible from its seed.
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
    const TrainResult r = train({.method = Method::AdamW, .steps = 400});
    EXPECT_GE(r.accuracy, 0.99f);
}

TEST(Spirals, MuonReaches99Percent) {
    const TrainResult r = train({.method = Method::Muon, .steps = 200});
    EXPECT_GE(r.accuracy, 0.99f);
}

TEST(Spirals, SgdReaches99Percent) {
    const TrainResult r = train({.method = Method::Sgd, .steps = 1500});
    EXPECT_GE(r.accuracy, 0.99f);
}

TEST(Spirals, EsLearns) {
    const TrainResult r = train({.method = Method::Es, .steps = 40, .per_class = 100});
    EXPECT_GE(r.accuracy, 0.6f);
}

TEST(Spirals, SameSeedSameResult) {
    const TrainResult a = train({.method = Method::AdamW, .steps = 30, .seed = 4});
    const TrainResult b = train({.method = Method::AdamW, .steps = 30, .seed = 4});
    EXPECT_EQ(a.loss, b.loss);
}

}  // namespace
}  // namespace forge::spirals
