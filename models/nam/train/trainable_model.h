// What the trainer needs of a model it trains (trainer.h): a differentiable forward for
// training windows, the inference forward used for validation, the parameters, and the
// export to a .nam file. TrainableWaveNet and TrainableLstm implement it.
#pragma once

#include "core/tensor.h"
#include "models/nam/nam_file.h"

#include <vector>

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
    // The autograd leaves.
    virtual const std::vector<Tensor>& parameters() const = 0;
    // A complete .nam document of the current weights.
    virtual NamFile to_nam_file(double sample_rate) const = 0;
};

}  // namespace forge::nam::train
