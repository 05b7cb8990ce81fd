// A stack of LSTM layers as PyTorch's nn.LSTM (batch first, gates i, f, g, o) with its
// parameter names under "<name>.": per layer N
//
//   weight_ih_lN [4H, in]  (in: the input size for layer 0, H above it)
//   weight_hh_lN [4H, H]
//   bias_ih_lN, bias_hh_lN [4H]
//
// each drawn from PyTorch's default U(±1/sqrt(H)). The math is ag::lstm_sequence's, which
// takes a layer fused: W = [W_ih | W_hh] [4H, in + H], b = b_ih + b_hh (fused()).
#pragma once

#include "core/tensor.h"
#include "nn/parameter_set.h"

#include <span>
#include <string>
#include <vector>

namespace forge::nn {

struct Lstm {
    struct Layer {
        Tensor weight_ih, weight_hh, bias_ih, bias_hh;
    };
    // One layer as ag::lstm_sequence takes it.
    struct Fused {
        Tensor weight, bias;  // [4H, in + H], [4H]
    };
    // The recurrent state, per layer: hidden h and cell c, each [B, H].
    struct State {
        std::vector<Tensor> h, c;
    };

    std::int64_t hidden_size = 0;
    std::vector<Layer> layers;

    static Lstm make(ParameterSet& params, const std::string& name, std::int64_t input_size, std::int64_t hidden_size,
                     std::int64_t num_layers);

    // Every layer fused; differentiable (ag::concat, ag::add). A caller stepping one sample at a
    // time fuses once and passes the result to each step.
    std::vector<Fused> fused() const;
    State zero_state(std::int64_t batch) const;

    // x [B, T, in] through every layer -> the last layer's hidden states [B, T, H]; `state`
    // comes in as the state before the first step and leaves as the state after the last.
    Tensor operator()(const Tensor& x, State& state) const;
    Tensor operator()(const Tensor& x, State& state, std::span<const Fused> fused) const;
};

}  // namespace forge::nn
