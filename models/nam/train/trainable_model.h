// What the trainer needs of a model it trains (trainer.h): a differentiable forward for
// training windows, the inference forward used for validation, the parameters, and the
// export to a .nam file. TrainableWaveNet and TrainableLstm implement it.
//
// The parameters live in an nn::ParameterSet: each has a name (the reference trainer's module
// path, e.g. "layer_arrays.0.layers.3.conv.weight"), its initial values come from core/random
// keyed by (seed, name), and the trainer keeps the best epoch as a state dict.
#pragma once

#include "core/tensor.h"
#include "models/nam/nam_file.h"
#include "nn/parameter_set.h"

#include <cstdint>

namespace forge::nam::train {

class TrainableModel {
public:
    virtual ~TrainableModel() = default;

    // Input samples one output depends on: a window of rf + ny - 1 inputs gives ny outputs.
    virtual long receptive_field() const = 0;
    // Inference: x [B, T] -> y [B, T - receptive_field() + 1]; records a graph in grad mode.
    virtual Tensor forward(const Tensor& x) const = 0;
    // Training (the same shapes); a model whose training pass differs from inference (the
    // LSTM's truncated backpropagation through time) overrides it.
    virtual Tensor forward_train(const Tensor& x) const { return forward(x); }
    // A complete .nam document of the current weights.
    virtual NamFile to_nam_file(double sample_rate) const = 0;

    // The named parameters (trainable ones are the autograd leaves).
    const nn::ParameterSet& parameters() const { return params_; }
    nn::ParameterSet& parameters() { return params_; }

protected:
    explicit TrainableModel(std::uint64_t seed) : params_(seed) {}

    nn::ParameterSet params_;
};

}  // namespace forge::nam::train
