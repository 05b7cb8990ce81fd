// Learning-rate schedules, Muon's orthogonalization and the optimizers' state round trip.
#include "core/autograd/variable.h"
#include "core/ops/matmul.h"
#include "core/optim/adam.h"
#include "core/optim/muon.h"
#include "core/optim/schedule.h"
#include "core/random/random_tensor.h"

#include <gtest/gtest.h>

namespace forge::optim {
namespace {

TEST(Schedule, WarmupCosine) {
    const WarmupCosine s{.peak = 1.0f, .warmup = 10, .total = 110, .floor = 0.1f};
    EXPECT_FLOAT_EQ(s.at(0), 0.1f);
    EXPECT_FLOAT_EQ(s.at(9), 1.0f);
    EXPECT_FLOAT_EQ(s.at(10), 1.0f);
    EXPECT_NEAR(s.at(60), 0.55f, 1e-6);  // halfway down the cosine
    EXPECT_FLOAT_EQ(s.at(110), 0.1f);
    EXPECT_FLOAT_EQ(s.at(500), 0.1f);
}

TEST(Schedule, LinearDecay) {
    const LinearDecay s{.peak = 2.0f, .warmup = 4, .total = 104, .end = 0.0f};
    EXPECT_FLOAT_EQ(s.at(1), 1.0f);
    EXPECT_FLOAT_EQ(s.at(54), 1.0f);
    EXPECT_FLOAT_EQ(s.at(104), 0.0f);
}

TEST(Muon, NewtonSchulzIsNearlyOrthogonal) {
    // The quintic iteration drives singular values into roughly [0.7, 1.2], not exactly 1:
    // check that X·Xᵀ is close to the identity in that loose sense.
    const Tensor g = random::normal_tensor({8, 16}, 5);
    const Tensor x = newton_schulz(g, 5);
    const Tensor gram = matmul(x, x, false, true);
    for (int i = 0; i < 8; ++i) {
        EXPECT_GT(gram.at({i, i}), 0.4f);
        EXPECT_LT(gram.at({i, i}), 1.5f);
    }
}

TEST(OptimizerState, RoundTripContinuesIdentically) {
    auto make_params = [] {
        return std::vector<Tensor>{ag::requires_grad(random::normal_tensor({3, 4}, 1)),
                                   ag::requires_grad(random::normal_tensor({4}, 2))};
    };
    auto set_grads = [](std::vector<Tensor>& ps, std::uint64_t key) {
        for (std::size_t i = 0; i < ps.size(); ++i) ag::set_grad(ps[i], random::normal_tensor(ps[i].shape(), key + i));
    };
    auto a = make_params();
    Adam straight(a, adamw_options(1e-2f));
    for (std::uint64_t s = 0; s < 4; ++s) {
        set_grads(a, 10 * s);
        straight.step();
    }
    auto b = make_params();
    OptimizerState saved;
    {
        Adam first(b, adamw_options(1e-2f));
        for (std::uint64_t s = 0; s < 2; ++s) {
            set_grads(b, 10 * s);
            first.step();
        }
        saved = first.state();
    }
    Adam resumed(b, adamw_options(1e-2f));
    resumed.load_state(saved);
    for (std::uint64_t s = 2; s < 4; ++s) {
        set_grads(b, 10 * s);
        resumed.step();
    }
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].to_vector(), b[i].to_vector());
    EXPECT_EQ(resumed.steps_taken(), 4);
}

}  // namespace
}  // namespace forge::optim
