// nn::Lstm: nn.LSTM's parameter names, shapes and default bound; the forward is
// ag::lstm_sequence on each layer's fused weights, equals PyTorch's cell written out by hand
// (gates i, f, g, o), carries its state across chunks, and checks against central differences.
#include "core/autograd/ag.h"
#include "core/autograd/gradcheck.h"
#include "core/error.h"
#include "core/random/random_tensor.h"
#include "nn/lstm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace forge::nn {
namespace {

TEST(Lstm, ParametersAreNamedAsPyTorchsLstm) {
    ParameterSet params(1);
    const Lstm lstm = Lstm::make(params, "dec_rnn.lstm", 3, 5, 2);
    const std::vector<std::pair<std::string, Shape>> expected = {
        {"dec_rnn.lstm.weight_ih_l0", {20, 3}}, {"dec_rnn.lstm.weight_hh_l0", {20, 5}},
        {"dec_rnn.lstm.bias_ih_l0", {20}},      {"dec_rnn.lstm.bias_hh_l0", {20}},
        {"dec_rnn.lstm.weight_ih_l1", {20, 5}}, {"dec_rnn.lstm.weight_hh_l1", {20, 5}},
        {"dec_rnn.lstm.bias_ih_l1", {20}},      {"dec_rnn.lstm.bias_hh_l1", {20}}};
    ASSERT_EQ(params.all().size(), expected.size());
    const float bound = 1.0f / std::sqrt(5.0f);  // U(±1/sqrt(H)) for every parameter
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(params.all()[i].name, expected[i].first);
        EXPECT_EQ(params.all()[i].value.shape(), expected[i].second) << expected[i].first;
        for (const float v : params.all()[i].value.to_vector()) EXPECT_LE(std::fabs(v), bound);
    }
    EXPECT_EQ(lstm.layers.size(), 2u);
    EXPECT_EQ(lstm.hidden_size, 5);
    EXPECT_THROW(Lstm::make(params, "empty", 3, 5, 0), Error);
}

TEST(Lstm, ForwardIsTheSequenceOpOnFusedWeights) {
    ParameterSet params(2);
    const Lstm lstm = Lstm::make(params, "rnn", 2, 4, 2);
    const Tensor x = random::normal_tensor({3, 6, 2}, 3);
    Lstm::State state = lstm.zero_state(3);
    const Tensor y = lstm(x, state);
    ASSERT_EQ(y.shape(), (Shape{3, 6, 4}));

    Tensor input = x;
    for (std::size_t l = 0; l < lstm.layers.size(); ++l) {
        const Lstm::Layer& layer = lstm.layers[l];
        const Tensor parts[] = {layer.weight_ih, layer.weight_hh};
        const Tensor states = ag::lstm_sequence(input, ag::concat(parts, 1), ag::add(layer.bias_ih, layer.bias_hh),
                                                Tensor::zeros({3, 4}), Tensor::zeros({3, 4}));
        const Tensor last = ag::select(states, 1, 5);
        EXPECT_EQ(state.h[l].contiguous().to_vector(), ag::narrow(last, 1, 0, 4).contiguous().to_vector()) << l;
        EXPECT_EQ(state.c[l].contiguous().to_vector(), ag::narrow(last, 1, 4, 4).contiguous().to_vector()) << l;
        input = ag::narrow(states, 2, 0, 4);
    }
    EXPECT_EQ(y.contiguous().to_vector(), input.contiguous().to_vector());
}

float sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

// PyTorch's documented cell: gates = W_ih x + b_ih + W_hh h + b_hh, split i, f, g, o;
// c' = σ(f) c + σ(i) tanh(g); h' = σ(o) tanh(c').
TEST(Lstm, OneLayerIsPyTorchsCell) {
    ParameterSet params(4);
    const std::int64_t in = 2, h = 3, steps = 5;
    const Lstm lstm = Lstm::make(params, "lstm", in, h, 1);
    const Tensor x = random::normal_tensor({1, steps, in}, 5);
    Lstm::State state = lstm.zero_state(1);
    const std::vector<float> got = lstm(x, state).contiguous().to_vector();

    const auto w_ih = lstm.layers[0].weight_ih.to_vector(), w_hh = lstm.layers[0].weight_hh.to_vector();
    const auto b_ih = lstm.layers[0].bias_ih.to_vector(), b_hh = lstm.layers[0].bias_hh.to_vector();
    const auto xs = x.to_vector();
    std::vector<float> hidden(h, 0.0f), cell(h, 0.0f);
    for (std::int64_t t = 0; t < steps; ++t) {
        std::vector<float> gates(4 * h);
        for (std::int64_t r = 0; r < 4 * h; ++r) {
            float sum = b_ih[r] + b_hh[r];
            for (std::int64_t k = 0; k < in; ++k) sum += w_ih[r * in + k] * xs[t * in + k];
            for (std::int64_t k = 0; k < h; ++k) sum += w_hh[r * h + k] * hidden[k];
            gates[r] = sum;
        }
        for (std::int64_t k = 0; k < h; ++k) {
            cell[k] = sigmoid(gates[h + k]) * cell[k] + sigmoid(gates[k]) * std::tanh(gates[2 * h + k]);
            hidden[k] = sigmoid(gates[3 * h + k]) * std::tanh(cell[k]);
            EXPECT_NEAR(got[t * h + k], hidden[k], 1e-5f) << "step " << t << ", unit " << k;
        }
    }
}

TEST(Lstm, StateCarriesAcrossChunks) {
    ParameterSet params(6);
    const Lstm lstm = Lstm::make(params, "rnn", 1, 4, 2);
    const Tensor x = random::normal_tensor({2, 9, 1}, 7);
    Lstm::State whole = lstm.zero_state(2);
    const std::vector<float> at_once = lstm(x, whole).contiguous().to_vector();

    Lstm::State chunked = lstm.zero_state(2);
    const auto fused = lstm.fused();
    const Tensor parts[] = {lstm(ag::narrow(x, 1, 0, 4), chunked, fused), lstm(ag::narrow(x, 1, 4, 5), chunked, fused)};
    EXPECT_EQ(ag::concat(parts, 1).contiguous().to_vector(), at_once);
    for (std::size_t l = 0; l < 2; ++l) {
        EXPECT_EQ(chunked.h[l].contiguous().to_vector(), whole.h[l].contiguous().to_vector()) << l;
        EXPECT_EQ(chunked.c[l].contiguous().to_vector(), whole.c[l].contiguous().to_vector()) << l;
    }
}

TEST(Lstm, GradientsMatchCentralDifferences) {
    ParameterSet params(8);
    const Lstm lstm = Lstm::make(params, "rnn", 2, 3, 2);
    std::vector<Tensor> inputs = {ag::requires_grad(random::normal_tensor({2, 4, 2}, 9))};
    for (const Tensor& p : params.trainable()) inputs.push_back(p);
    // Measured worst |analytic - numeric| (f32 central differences through the sigmoids and
    // tanhs of 4 steps, 2 layers): 1.3e-5 simd. Bound: 10x, absolute.
    ag::GradcheckOptions options;
    options.rtol = 0.0;
    options.atol = 1.3e-4;
    const auto result = ag::gradcheck(
        [&](std::span<const Tensor> in) {
            Lstm::State state = lstm.zero_state(2);
            return lstm(in[0], state);
        },
        inputs, options);
    std::printf("lstm: worst gradient error %.3g\n", result.worst_error);
    EXPECT_TRUE(result.ok) << result.report;
}

}  // namespace
}  // namespace forge::nn
