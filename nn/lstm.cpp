#include "nn/lstm.h"

#include "core/autograd/ops/lstm.h"
#include "core/autograd/ops/pointwise.h"
#include "core/autograd/ops/shape.h"
#include "core/error.h"

namespace forge::nn {

Lstm Lstm::make(ParameterSet& params, const std::string& name, std::int64_t input_size, std::int64_t hidden_size,
                std::int64_t num_layers) {
    check(input_size > 0 && hidden_size > 0 && num_layers > 0,
          "lstm '{}': input size {}, hidden size {} and layers {} must be positive", name, input_size, hidden_size,
          num_layers);
    const std::int64_t h = hidden_size;
    const Init init = Init::fan_in_uniform(h);  // PyTorch's LSTM: U(-1/sqrt(H), 1/sqrt(H)) for every parameter
    Lstm lstm;
    lstm.hidden_size = h;
    for (std::int64_t l = 0; l < num_layers; ++l) {
        const std::string prefix = name + ".", suffix = "_l" + std::to_string(l);
        const std::int64_t in = l == 0 ? input_size : h;
        Layer layer;
        layer.weight_ih = params.add(prefix + "weight_ih" + suffix, Shape{4 * h, in}, init);
        layer.weight_hh = params.add(prefix + "weight_hh" + suffix, Shape{4 * h, h}, init);
        layer.bias_ih = params.add(prefix + "bias_ih" + suffix, Shape{4 * h}, init);
        layer.bias_hh = params.add(prefix + "bias_hh" + suffix, Shape{4 * h}, init);
        lstm.layers.push_back(layer);
    }
    return lstm;
}

std::vector<Lstm::Fused> Lstm::fused() const {
    std::vector<Fused> out;
    for (const Layer& layer : layers) {
        const Tensor parts[] = {layer.weight_ih, layer.weight_hh};
        out.push_back({ag::concat(parts, 1), ag::add(layer.bias_ih, layer.bias_hh)});
    }
    return out;
}

Lstm::State Lstm::zero_state(std::int64_t batch) const {
    State state;
    for (std::size_t l = 0; l < layers.size(); ++l) {
        state.h.push_back(Tensor::zeros(Shape{batch, hidden_size}));
        state.c.push_back(Tensor::zeros(Shape{batch, hidden_size}));
    }
    return state;
}

Tensor Lstm::operator()(const Tensor& x, State& state) const { return (*this)(x, state, fused()); }

Tensor Lstm::operator()(const Tensor& x, State& state, std::span<const Fused> weights) const {
    check(x.rank() == 3, "lstm: expected [batch, time, features], got {}", x.shape().to_string());
    check(weights.size() == layers.size() && state.h.size() == layers.size() && state.c.size() == layers.size(),
          "lstm: {} layers, but {} fused weights and a state of {} layers", layers.size(), weights.size(),
          state.h.size());
    const std::int64_t h = hidden_size, steps = x.size(1);
    Tensor input = x;
    for (std::size_t l = 0; l < layers.size(); ++l) {
        // Every step's (h, c) side by side: [B, T, 2H]; the next layer reads the h half.
        const Tensor states = ag::lstm_sequence(input, weights[l].weight, weights[l].bias, state.h[l], state.c[l]);
        const Tensor last = ag::select(states, 1, steps - 1);  // [B, 2H]
        state.h[l] = ag::narrow(last, 1, 0, h);
        state.c[l] = ag::narrow(last, 1, h, h);
        input = ag::narrow(states, 2, 0, h);
    }
    return input;
}

}  // namespace forge::nn
