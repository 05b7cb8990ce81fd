// gradcheck of the reductions, softmaxes and norms.
#include "test/core/autograd/test_util.h"

namespace forge::ag {
namespace {

using testing::param;
using testing::passes_gradcheck;

TEST(GradcheckReduce, SumAndMeanAlongEveryAxis) {
    for (int axis : {0, 1, -1}) {
        for (bool keepdim : {false, true}) {
            EXPECT_TRUE(passes_gradcheck([=](std::span<const Tensor> in) { return ag::sum(in[0], axis, keepdim); },
                                         {param({2, 3, 4}, 1)}));
            EXPECT_TRUE(passes_gradcheck([=](std::span<const Tensor> in) { return ag::mean(in[0], axis, keepdim); },
                                         {param({2, 3, 4}, 2)}));
        }
    }
}

TEST(GradcheckReduce, MaxRoutesToTheArgmax) {
    for (int axis : {0, 2}) {
        EXPECT_TRUE(passes_gradcheck([=](std::span<const Tensor> in) { return ag::max(in[0], axis); },
                                     {param({2, 3, 4}, 3)}));
    }
}

TEST(GradcheckReduce, LogSumExp) {
    for (int axis : {0, -1}) {
        EXPECT_TRUE(passes_gradcheck([=](std::span<const Tensor> in) { return ag::logsumexp(in[0], axis, true); },
                                     {param({3, 5}, 4, -2, 2)}));
    }
}

TEST(GradcheckReduce, SumAllAndMeanAll) {
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::sum_all(in[0]); }, {param({3, 2}, 5)}));
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::mean_all(in[0]); }, {param({3, 2}, 6)}));
}

TEST(GradcheckSoftmax, SoftmaxWithScale) {
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::softmax(in[0], 0.7f); },
                                 {param({3, 5}, 7, -2, 2)}));
}

TEST(GradcheckSoftmax, CausalSoftmax) {
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::softmax(in[0], 1.3f, true); },
                                 {param({2, 3, 4}, 8, -2, 2)}));
}

TEST(GradcheckSoftmax, LogSoftmaxWithScale) {
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::log_softmax(in[0], 0.7f); },
                                 {param({3, 5}, 9, -2, 2)}));
}

TEST(GradcheckSoftmax, CausalLogSoftmax) {
    // Masked log-probabilities are -inf; exp maps them to 0 so the checked sum stays finite.
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::exp(ag::log_softmax(in[0], 1.3f, true)); },
                                 {param({2, 4, 4}, 10, -2, 2)}));
}

TEST(GradcheckNorm, RmsNorm) {
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::rmsnorm(in[0], in[1], 1e-5f); },
                                 {param({3, 6}, 11), param({6}, 12, 0.5f, 1.5f)}));
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::rmsnorm(in[0], Tensor{}, 1e-5f); },
                                 {param({3, 6}, 13)}));
}

TEST(GradcheckNorm, LayerNorm) {
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::layernorm(in[0], in[1], in[2], 1e-5f); },
                                 {param({3, 6}, 14), param({6}, 15, 0.5f, 1.5f), param({6}, 16)}));
    EXPECT_TRUE(passes_gradcheck(
        [](std::span<const Tensor> in) { return ag::layernorm(in[0], Tensor{}, Tensor{}, 1e-5f); }, {param({3, 6}, 17)}));
}

}  // namespace
}  // namespace forge::ag
