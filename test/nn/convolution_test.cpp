// nn::Conv1d and nn::Conv2d: PyTorch's parameter names, shapes and default bound; the forward is
// ag::conv1d / ag::conv2d with the module's options, and Conv1d's features-last pointwise form
// equals the convolution itself.
#include "core/autograd/ag.h"
#include "core/error.h"
#include "core/random/random_tensor.h"
#include "nn/conv1d.h"
#include "nn/conv2d.h"

#include <gtest/gtest.h>

#include <cmath>

namespace forge::nn {
namespace {

void expect_within(const Tensor& t, float bound) {
    for (const float v : t.to_vector()) EXPECT_LE(std::fabs(v), bound);
}

TEST(Conv1d, NamesShapesAndPyTorchBound) {
    ParameterSet params(1);
    const Conv1d conv = Conv1d::make(params, "enc.conv", 4, 6, 3, {.groups = 2, .padding = Conv1dPadding::Valid});
    ASSERT_EQ(params.all().size(), 2u);
    EXPECT_EQ(params.all()[0].name, "enc.conv.weight");
    EXPECT_EQ(params.all()[1].name, "enc.conv.bias");
    EXPECT_EQ(conv.weight.shape(), (Shape{6, 2, 3}));  // [out, in/groups, k]
    EXPECT_EQ(conv.bias.shape(), (Shape{6}));
    const float bound = 1.0f / std::sqrt(2.0f * 3.0f);  // fan_in = in/groups · k
    expect_within(conv.weight, bound);
    expect_within(conv.bias, bound);

    const Conv1d plain = Conv1d::make(params, "mixer", 3, 5, 1, {}, /*with_bias=*/false);
    EXPECT_FALSE(plain.bias.defined());
    EXPECT_FALSE(params.contains("mixer.bias"));
    EXPECT_THROW(Conv1d::make(params, "odd", 3, 4, 1, {.groups = 2}), Error);
}

TEST(Conv1d, ForwardIsTheFunctionalOp) {
    ParameterSet params(2);
    const Conv1dOptions options{.dilation = 2, .groups = 1, .padding = Conv1dPadding::Causal};
    const Conv1d conv = Conv1d::make(params, "conv", 3, 4, 3, options);
    const Tensor x = random::normal_tensor({2, 3, 9}, 3);
    const Tensor y = conv(x);
    EXPECT_EQ(y.shape(), (Shape{2, 4, 9}));
    EXPECT_EQ(y.to_vector(), ag::conv1d(x, conv.weight, conv.bias, options).to_vector());
}

TEST(Conv1d, PointwiseEqualsTheConvolutionOnFeaturesLast) {
    ParameterSet params(4);
    const Conv1d conv = Conv1d::make(params, "pointwise", 5, 3, 1, {.padding = Conv1dPadding::Valid});
    const Tensor x = random::normal_tensor({2, 7, 5}, 5);  // [B, T, in]
    const auto got = conv.pointwise(x).to_vector();
    const auto want = ag::transpose(conv(ag::contiguous(ag::transpose(x, 1, 2))), 1, 2).contiguous().to_vector();
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f) << i;

    const Conv1d wide = Conv1d::make(params, "wide", 5, 3, 3, {});
    EXPECT_THROW(wide.pointwise(x), Error);
}

TEST(Conv2d, NamesShapesAndPyTorchBound) {
    ParameterSet params(6);
    const Conv2d depthwise = Conv2d::make(params, "conv.2", 4, 4, 3, {.stride = 2, .padding = 1, .groups = 4});
    EXPECT_EQ(params.all()[0].name, "conv.2.weight");
    EXPECT_EQ(params.all()[1].name, "conv.2.bias");
    EXPECT_EQ(depthwise.weight.shape(), (Shape{4, 1, 3, 3}));
    EXPECT_EQ(depthwise.bias.shape(), (Shape{4}));
    expect_within(depthwise.weight, 1.0f / 3.0f);  // fan_in = 1 · 3 · 3
    expect_within(depthwise.bias, 1.0f / 3.0f);
    EXPECT_FALSE(Conv2d::make(params, "no_bias", 2, 3, 1, {}, /*with_bias=*/false).bias.defined());
}

TEST(Conv2d, ForwardIsTheFunctionalOp) {
    ParameterSet params(7);
    const Conv2dOptions options{.stride = 2, .padding = 1, .groups = 1};
    const Conv2d conv = Conv2d::make(params, "conv.0", 1, 3, 3, options);
    const Tensor x = random::normal_tensor({2, 1, 9, 8}, 8);
    const Tensor y = conv(x);
    EXPECT_EQ(y.shape(), (Shape{2, 3, conv2d_out_size(9, 3, options), conv2d_out_size(8, 3, options)}));
    EXPECT_EQ(y.to_vector(), ag::conv2d(x, conv.weight, conv.bias, options).to_vector());
}

}  // namespace
}  // namespace forge::nn
