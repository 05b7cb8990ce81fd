// gradcheck of matmul, views, concat/split, embedding, rope, losses and dropout.
#include "test/core/autograd/test_util.h"

namespace forge::ag {
namespace {

using testing::ids;
using testing::param;
using testing::passes_gradcheck;

TEST(GradcheckMatmul, EveryTransposeCombination) {
    for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
            const Tensor a = param(ta ? Shape{4, 3} : Shape{3, 4}, 1);
            const Tensor b = param(tb ? Shape{5, 4} : Shape{4, 5}, 2);
            EXPECT_TRUE(passes_gradcheck([=](std::span<const Tensor> in) { return ag::matmul(in[0], in[1], ta, tb); },
                                         {a, b}))
                << "ta " << ta << " tb " << tb;
        }
    }
}

TEST(GradcheckMatmul, BatchedWithBroadcastWeights) {
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::matmul(in[0], in[1], false, true); },
                                 {param({2, 3, 4}, 3), param({5, 4}, 4)}));
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::matmul(in[0], in[1]); },
                                 {param({2, 1, 3, 4}, 5), param({3, 4, 2}, 6)}));
}

TEST(GradcheckMatmul, Linear) {
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::linear(in[0], in[1], in[2]); },
                                 {param({3, 4}, 7), param({2, 4}, 8), param({2}, 9)}));
}

TEST(GradcheckShape, Views) {
    const Tensor x = param({2, 3, 4}, 10);
    auto check_view = [&](auto view) {
        EXPECT_TRUE(passes_gradcheck([view](std::span<const Tensor> in) { return ag::mul(view(in[0]), view(in[0])); }, {x}));
    };
    check_view([](const Tensor& t) { return ag::reshape(t, Shape{6, 4}); });
    check_view([](const Tensor& t) { return ag::transpose(t, 0, 2); });
    check_view([](const Tensor& t) { return ag::permute(t, std::vector<int>{2, 0, 1}); });
    check_view([](const Tensor& t) { return ag::narrow(t, 1, 1, 2); });
    check_view([](const Tensor& t) { return ag::select(t, 2, 3); });
    check_view([](const Tensor& t) { return ag::unsqueeze(t, 1); });
    check_view([](const Tensor& t) { return ag::squeeze(ag::narrow(t, 1, 0, 1), 1); });
    check_view([](const Tensor& t) { return ag::broadcast_to(ag::narrow(t, 0, 0, 1), Shape{3, 3, 4}); });
    check_view([](const Tensor& t) { return ag::contiguous(ag::transpose(t, 0, 1)); });
}

TEST(GradcheckShape, ConcatAndSplit) {
    EXPECT_TRUE(passes_gradcheck(
        [](std::span<const Tensor> in) {
            const Tensor joined = ag::concat(in, 1);
            const std::int64_t sizes[] = {3, 2};
            const auto pieces = ag::split(joined, sizes, 1);
            return ag::mul(pieces[0], ag::narrow(pieces[0], 1, 0, 3));
        },
        {param({2, 1}, 11), param({2, 4}, 12)}));
}

TEST(GradcheckEmbedding, RepeatedIdsAddUp) {
    const Tensor positions = ids({3, 0, 3, 1, 3, 2}, {2, 3});
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::embedding(in[0], in[1]); },
                                 {param({5, 4}, 13), positions}));
}

TEST(GradcheckRope, NormalAndNeox) {
    const Tensor positions = ids({0, 3, 7}, {3});
    for (RopeMode mode : {RopeMode::Normal, RopeMode::Neox}) {
        RopeConfig config;
        config.mode = mode;
        EXPECT_TRUE(passes_gradcheck([config](std::span<const Tensor> in) { return ag::rope(in[0], in[1], config); },
                                     {param({3, 2, 4}, 14), positions}));
    }
}

TEST(GradcheckLoss, CrossEntropy) {
    const Tensor targets = ids({2, 0, 4, 1}, {4});
    auto f = [](CrossEntropyOptions options) {
        return [options](std::span<const Tensor> in) { return ag::cross_entropy(in[0], in[1], options); };
    };
    EXPECT_TRUE(passes_gradcheck(f({}), {param({4, 5}, 15, -2, 2), targets}));
    EXPECT_TRUE(passes_gradcheck(f({.ignore_index = 0, .label_smoothing = 0.0f}), {param({4, 5}, 16, -2, 2), targets}));
    EXPECT_TRUE(passes_gradcheck(f({.ignore_index = -100, .label_smoothing = 0.2f}), {param({4, 5}, 17, -2, 2), targets}));
}

TEST(GradcheckLoss, Mse) {
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::mse(in[0], in[1]); },
                                 {param({3, 4}, 18), param({3, 4}, 19)}));
}

TEST(GradcheckDropout, FixedKeyIsAFixedMask) {
    EXPECT_TRUE(passes_gradcheck([](std::span<const Tensor> in) { return ag::dropout(in[0], 0.3f, 1234, true); },
                                 {param({4, 8}, 20)}));
}

}  // namespace
}  // namespace forge::ag

namespace forge::ag {
namespace {

using testing::param;
using testing::passes_gradcheck;

void check_conv(const Shape& x_shape, const Shape& w_shape, Conv1dOptions options, bool with_bias) {
    auto f = [options, with_bias](std::span<const Tensor> in) {
        return ag::conv1d(in[0], in[1], with_bias ? in[2] : Tensor{}, options);
    };
    EXPECT_TRUE(passes_gradcheck(f, {param(x_shape, 30), param(w_shape, 31), param({w_shape[0]}, 32)}));
}

TEST(GradcheckConv1d, CausalWithBias) { check_conv({2, 3, 6}, {4, 3, 3}, {}, true); }
TEST(GradcheckConv1d, ValidDilated) {
    check_conv({2, 2, 9}, {3, 2, 3}, {.dilation = 2, .padding = Conv1dPadding::Valid}, false);
}
TEST(GradcheckConv1d, GroupedAndDepthwise) {
    check_conv({1, 4, 7}, {6, 2, 2}, {.groups = 2}, true);
    check_conv({1, 3, 5}, {3, 1, 3}, {.dilation = 2, .groups = 3}, false);
}
TEST(GradcheckConv1d, SamePaddedDepthwise) {  // the Conformer convolution module's depthwise conv
    check_conv({2, 3, 7}, {3, 1, 5}, {.groups = 3, .padding = Conv1dPadding::Same}, true);
    check_conv({1, 2, 6}, {4, 2, 3}, {.dilation = 2, .padding = Conv1dPadding::Same}, false);
}
void check_conv2d(const Shape& x_shape, const Shape& w_shape, Conv2dOptions options, bool with_bias) {
    auto f = [options, with_bias](std::span<const Tensor> in) {
        return ag::conv2d(in[0], in[1], with_bias ? in[2] : Tensor{}, options);
    };
    EXPECT_TRUE(passes_gradcheck(f, {param(x_shape, 33), param(w_shape, 34), param({w_shape[0]}, 35)}));
}

// FastConformer's dw_striding subsampling: 3x3 / 2 with padding 1, full and depthwise.
TEST(GradcheckConv2d, StridedPaddedFullAndDepthwise) {
    check_conv2d({2, 1, 7, 6}, {3, 1, 3, 3}, {.stride = 2, .padding = 1}, true);
    check_conv2d({1, 3, 5, 8}, {3, 1, 3, 3}, {.stride = 2, .padding = 1, .groups = 3}, true);
}
TEST(GradcheckConv2d, GroupedUnitStrideAndPointwise) {
    check_conv2d({1, 4, 5, 4}, {6, 2, 3, 2}, {.stride = 1, .padding = 0, .groups = 2}, false);
    check_conv2d({2, 3, 3, 4}, {2, 3, 1, 1}, {}, true);
    check_conv2d({1, 2, 8, 7}, {2, 2, 3, 3}, {.stride = 3, .padding = 2}, true);
}
TEST(GradcheckConv1d, Unbatched) { check_conv({3, 6}, {2, 3, 2}, {}, true); }

}  // namespace
}  // namespace forge::ag
