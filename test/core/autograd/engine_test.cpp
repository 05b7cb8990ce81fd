// The backward engine: accumulation, zero_grad, NoGradScope, a second backward, freeing of
// intermediates, and determinism across thread counts.
#include "test/core/autograd/test_util.h"

#include "core/ops/binary.h"
#include "core/ops/matmul.h"
#include "core/ops/unary.h"
#include "core/thread_pool.h"

#include <gmock/gmock.h>

namespace forge::ag {
namespace {

using testing::param;

TEST(Engine, DiamondAddsBothPaths) {
    // y = x*x + 3x: dy/dx = 2x + 3, where x reaches the output along two paths.
    const Tensor x = requires_grad(Tensor::from({1.0f, -2.0f}, {2}));
    backward(sum_all(ag::add(ag::mul(x, x), ag::mul(x, 3.0f))));
    EXPECT_EQ(grad(x).to_vector(), (std::vector<float>{5.0f, -1.0f}));
}

TEST(Engine, FinalGradientIsReportedOnceEachLeafIsComplete) {
    // loss = sum((x*x + 3x) * w): w's gradient is final after the last op, x's only after both
    // of its paths delivered. Each leaf is reported once, with its whole gradient in place.
    const Tensor x = requires_grad(Tensor::from({1.0f, -2.0f}, {2}));
    const Tensor w = requires_grad(Tensor::from({2.0f, 0.5f}, {2}));
    const Tensor unused = requires_grad(Tensor::from({1.0f}, {1}));
    std::vector<const AutogradMeta*> order;
    std::vector<std::vector<float>> at_report;
    backward(sum_all(ag::mul(ag::add(ag::mul(x, x), ag::mul(x, 3.0f)), w)), {}, [&](const AutogradMeta& leaf) {
        order.push_back(&leaf);
        at_report.push_back(leaf.grad.to_vector());
    });
    ASSERT_EQ(order.size(), 2u);
    EXPECT_EQ(order[0], w.autograd_meta().get());
    EXPECT_EQ(order[1], x.autograd_meta().get());
    EXPECT_EQ(at_report[0], (std::vector<float>{4.0f, -2.0f}));  // x*x + 3x
    EXPECT_EQ(at_report[1], (std::vector<float>{10.0f, -0.5f}));  // (2x + 3) * w
    EXPECT_EQ(at_report[1], grad(x).to_vector());
    EXPECT_FALSE(grad(unused).defined());
}

TEST(Engine, LeavesAccumulateUntilZeroGrad) {
    const Tensor x = requires_grad(Tensor::from({1.0f, 2.0f}, {2}));
    backward(sum_all(ag::mul(x, 2.0f)));
    backward(sum_all(ag::mul(x, 3.0f)));
    EXPECT_EQ(grad(x).to_vector(), (std::vector<float>{5.0f, 5.0f}));
    zero_grad({x});
    EXPECT_FALSE(grad(x).defined());
    backward(sum_all(x));
    EXPECT_EQ(grad(x).to_vector(), (std::vector<float>{1.0f, 1.0f}));
}

TEST(Engine, CopiesOfALeafShareItsGradient) {
    const Tensor x = requires_grad(Tensor::from({1.0f}, {1}));
    const Tensor alias = x;
    backward(sum_all(ag::mul(alias, 4.0f)));
    EXPECT_EQ(grad(x).item(), 4.0f);
}

TEST(Engine, NoGradScopeRecordsNothing) {
    const Tensor x = param({3}, 1);
    Tensor y;
    {
        NoGradScope no_grad;
        y = sum_all(ag::exp(x));
    }
    EXPECT_FALSE(requires_grad_of(y));
    EXPECT_THAT([&] { backward(y); }, ::testing::ThrowsMessage<Error>(::testing::HasSubstr("does not require")));
}

TEST(Engine, SecondBackwardIsAClearError) {
    const Tensor x = param({3}, 2);
    const Tensor loss = sum_all(ag::exp(x));
    backward(loss);
    EXPECT_THAT([&] { backward(loss); },
                ::testing::ThrowsMessage<Error>(::testing::HasSubstr("backward through a graph a second time")));
}

TEST(Engine, BackwardOfANonScalarNeedsAGradient) {
    const Tensor x = param({3}, 3);
    EXPECT_THROW(backward(ag::exp(x)), Error);
    backward(ag::exp(x), Tensor::full({3}, 1.0f));
    EXPECT_TRUE(grad(x).defined());
}

// An intermediate saved for backward lives until backward consumed its node; without
// recording it dies as soon as its last handle does.
std::weak_ptr<Storage> intermediate_of(const Tensor& x, Tensor& loss) {
    const Tensor h = ag::exp(x);
    loss = sum_all(ag::mul(h, h));
    return h.storage();
}

TEST(Engine, IntermediatesLiveUntilBackwardWhenTraining) {
    const Tensor x = param({8}, 4);
    Tensor loss;
    const auto h = intermediate_of(x, loss);
    EXPECT_FALSE(h.expired());
    backward(loss);
    EXPECT_TRUE(h.expired());
}

TEST(Engine, IntermediatesDieAtOnceWhenNotTraining) {
    const Tensor x = param({8}, 5);
    Tensor loss;
    NoGradScope inference;
    const auto h = intermediate_of(x, loss);
    EXPECT_TRUE(h.expired());
}

// A graph with many independent branches (they run as parallel waves) gives bitwise the
// same gradients on 1 thread and on several.
std::vector<float> branchy_gradient() {
    const Tensor x = param({16, 16}, 6);
    const Tensor w = param({16, 16}, 7);
    Tensor total = sum_all(x);
    for (int branch = 0; branch < 6; ++branch) {
        const Tensor h = ag::tanh(ag::matmul(ag::mul(x, static_cast<float>(branch + 1)), w));
        total = ag::add(total, sum_all(ag::mul(h, h)));
    }
    backward(total);
    std::vector<float> g = grad(x).to_vector();
    const auto gw = grad(w).to_vector();
    g.insert(g.end(), gw.begin(), gw.end());
    return g;
}

TEST(Engine, GradientsAreIdenticalForAnyThreadCount) {
    const int original = ThreadPool::global().size();
    ThreadPool::set_global_threads(1);
    const auto one = branchy_gradient();
    ThreadPool::set_global_threads(4);
    const auto four = branchy_gradient();
    ThreadPool::set_global_threads(original);
    EXPECT_EQ(one, four);
}

TEST(Engine, RequiresGradOnlyOnFloatLeaves) {
    EXPECT_THROW(requires_grad(Tensor::zeros({2}, DType::I64)), Error);
    const Tensor x = param({2}, 8);
    EXPECT_THROW(requires_grad(ag::exp(x)), Error);
}

}  // namespace
}  // namespace forge::ag

namespace forge::ag {
namespace {

TEST(Gradcheck, CatchesAWrongVjp) {
    // exp whose VJP forgets the factor exp(x): gradcheck must notice.
    auto wrong_exp = [](std::span<const Tensor> in) {
        return record("wrong_exp", forge::exp(in[0]), {&in[0]},
                      [](const Tensor& g, InputMask) { return std::vector<Tensor>{g}; });
    };
    const GradcheckResult result = gradcheck(wrong_exp, {testing::param({4}, 9)});
    EXPECT_FALSE(result.ok);
    EXPECT_THAT(result.report, ::testing::HasSubstr("analytic"));
}

// exp and a matrix product whose VJPs are off by `factor` (the whole gradient, or its first
// element only when `first_only`).
DifferentiableFunction scaled_exp(float factor, bool first_only) {
    return [=](std::span<const Tensor> in) {
        return record("scaled_exp", forge::exp(in[0]), {&in[0]}, [=, x = detach(in[0])](const Tensor& g, InputMask) {
            Tensor grad = forge::mul(g, forge::exp(x)).contiguous().clone();
            auto values = grad.span<float>();
            if (first_only) values[0] *= factor;
            else for (float& v : values) v *= factor;
            return std::vector<Tensor>{grad};
        });
    };
}

TEST(Gradcheck, CatchesAOnePercentError) {
    const Tensor x = testing::param({3, 4}, 9);
    EXPECT_TRUE(gradcheck(scaled_exp(1.0f, false), {x}).ok) << "the exact VJP must pass";
    EXPECT_FALSE(gradcheck(scaled_exp(1.01f, false), {x}).ok) << "every element 1% too large";
    EXPECT_FALSE(gradcheck(scaled_exp(0.99f, false), {x}).ok) << "every element 1% too small";
    EXPECT_FALSE(gradcheck(scaled_exp(1.01f, true), {x}).ok) << "one element 1% too large";
}

TEST(Gradcheck, CatchesAOnePercentErrorInAMatrixProduct) {
    // d(a·b)/da = g·bᵀ, here scaled by 1.01: the error a mis-scaled kernel would make.
    auto wrong_matmul = [](std::span<const Tensor> in) {
        return record("wrong_matmul", forge::matmul(in[0], in[1]), {&in[0]}, [b = detach(in[1])](const Tensor& g, InputMask) {
            return std::vector<Tensor>{forge::matmul(g, b, false, true) * 1.01f};
        });
    };
    const Tensor b = detach(testing::param({5, 4}, 11));  // a constant: only a is checked
    EXPECT_FALSE(gradcheck(wrong_matmul, {testing::param({3, 5}, 10), b}).ok);
}

}  // namespace
}  // namespace forge::ag
