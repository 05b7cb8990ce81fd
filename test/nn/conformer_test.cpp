// The FastConformer modules are differentiable end to end (what `forge train asr` needs): a
// Conformer block and the dw_striding subsampling against central differences, with respect to
// the input and every trainable parameter; and the same values with and without recording.
#include "core/autograd/ag.h"
#include "core/autograd/gradcheck.h"
#include "core/random/random_tensor.h"
#include "nn/conformer_layer.h"
#include "nn/conv_subsampling.h"
#include "nn/rel_position_attention.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace forge::nn {
namespace {

ag::GradcheckOptions options(double atol) {
    ag::GradcheckOptions o;
    o.rtol = 0.0;
    o.atol = atol;
    return o;
}

TEST(ConformerLayer, GradientsMatchCentralDifferences) {
    ParameterSet params(3);
    const auto layer = ConformerLayer::make(params, "encoder.layers.0.", {.dim = 8, .n_head = 2, .ff_dim = 12,
                                                                         .conv_kernel = 3, .bias = true});
    const Tensor positions = relative_positions(5, 8);
    std::vector<Tensor> inputs = {ag::requires_grad(random::normal_tensor({2, 5, 8}, 4))};
    for (const Tensor& p : params.trainable()) inputs.push_back(p);
    // Measured worst |analytic - numeric| (f32 central differences through the layer norms,
    // softmax, GLU and SiLU): 1.1e-4 scalar, 9.7e-5 simd. Bound: 10x, absolute.
    const auto result = ag::gradcheck([&](std::span<const Tensor> in) { return layer(in[0], positions); }, inputs,
                                      options(1.1e-3));
    std::printf("conformer layer: worst gradient error %.3g\n", result.worst_error);
    EXPECT_TRUE(result.ok) << result.report;
}

TEST(ConvSubsampling, GradientsMatchCentralDifferences) {
    ParameterSet params(5);
    const auto sub = ConvSubsampling::make(params, "encoder.pre_encode.", {.feat_in = 8, .channels = 3, .d_model = 4});
    std::vector<Tensor> inputs = {ag::requires_grad(random::normal_tensor({1, 11, 8}, 6))};
    for (const Tensor& p : params.trainable()) inputs.push_back(p);
    // Measured worst |analytic - numeric|: 2.1e-6 scalar, 1.7e-6 simd (no ReLU kink near
    // this seed's inputs). Bound: 10x, absolute.
    const auto result = ag::gradcheck([&](std::span<const Tensor> in) { return sub(in[0]); }, inputs, options(2.1e-5));
    std::printf("conv subsampling: worst gradient error %.3g\n", result.worst_error);
    EXPECT_TRUE(result.ok) << result.report;
    EXPECT_EQ(sub(inputs[0]).shape(), (Shape{1, ConvSubsampling::subsampled_length(11), 4}));
}

TEST(ConformerLayer, SameValuesWithAndWithoutGradients) {
    ParameterSet params(8);
    const auto layer = ConformerLayer::make(params, "", {.dim = 8, .n_head = 4, .ff_dim = 16, .conv_kernel = 5,
                                                         .bias = false});
    const Tensor x = random::normal_tensor({1, 6, 8}, 12);
    const Tensor positions = relative_positions(6, 8);
    const auto recorded = layer(x, positions).to_vector();
    ag::NoGradScope no_grad;
    EXPECT_EQ(layer(x, positions).to_vector(), recorded);
}

// rel_shift puts the score of offset i - j at (i, j).
TEST(RelShift, PutsEachOffsetOnItsDiagonal) {
    const std::int64_t t = 4;
    std::vector<float> scores(static_cast<std::size_t>(t * (2 * t - 1)));
    for (std::int64_t i = 0; i < t; ++i)
        for (std::int64_t r = 0; r < 2 * t - 1; ++r) scores[static_cast<std::size_t>(i * (2 * t - 1) + r)] = static_cast<float>(100 * i + (t - 1 - r));
    const Tensor shifted = rel_shift(Tensor::from(std::span<const float>(scores), Shape{t, 2 * t - 1}));
    for (std::int64_t i = 0; i < t; ++i)
        for (std::int64_t j = 0; j < t; ++j) EXPECT_EQ(shifted.at({i, j}), static_cast<float>(100 * i + (i - j)));
}

}  // namespace
}  // namespace forge::nn
