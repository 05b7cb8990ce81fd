// The reference trainer's LSTM (nam/models/recurrent.py) on forge's autograd: stacked LSTM
// layers (ag::lstm_sequence) and a linear head, trained as the reference does and exported in
// NeuralAmpModelerCore's LSTM weight order, so the engine (models/nam/lstm.h) plays what was
// trained.
//
// - Parameters as PyTorch's nn.LSTM (nn::Lstm, named as the reference's modules:
//   "core.weight_ih_l0", ..., "initial_hidden", "initial_cell", "head.weight"): W_ih, W_hh, b_ih,
//   b_hh per layer, U(±1/sqrt(H)), then the reference's "up the remembering": input-gate biases
//   -2 and forget-gate biases +2 (each of b_ih and b_hh); a learned initial hidden and cell
//   state per layer (zeros); the head nn.Linear(H, 1) (nn::Linear, its bias drawn as PyTorch's).
// - Training (forward_train): from the learned initial state, the first train_burn_in
//   samples with their outputs detached (the state is not, so the initial state learns),
//   then chunks of train_truncate samples, the state detached between chunks.
// - Export: per layer [W_ih | W_hh] (4H × (1+H) rows, gates i, f, g, o), b_ih + b_hh, and the
//   initial h and c the reference exports: the state after one second of silence from zeros
//   (its _get_initial_state); then the head weight and bias.
#pragma once

#include "models/nam/train/presets.h"
#include "models/nam/train/trainable_model.h"
#include "nn/linear.h"
#include "nn/lstm.h"

#include <cstdint>
#include <vector>

namespace forge::nam::train {

class TrainableLstm final : public TrainableModel {
public:
    TrainableLstm(LstmSpec spec, std::uint64_t seed);

    long receptive_field() const override { return 1; }
    // Inference from the learned initial state: x [B, T] -> [B, T].
    Tensor forward(const Tensor& x) const override;
    Tensor forward_train(const Tensor& x) const override;
    NamFile to_nam_file(double sample_rate) const override;

    // Per layer h and c, each [B, H].
    using State = nn::Lstm::State;
    // The learned initial state, repeated over a batch of `batch`.
    State initial_state(std::int64_t batch) const;
    // The state the export writes: after `samples` zeros from a zero state.
    State exported_state(long samples = 48000) const;
    // x [B, T] from `state` (updated to the state after the last sample) -> [B, T].
    Tensor forward_from(const Tensor& x, State& state) const;
    const LstmSpec& spec() const { return spec_; }

private:
    Tensor head(const Tensor& features) const;  // [B, T, H] -> [B, T]

    LstmSpec spec_;
    nn::Lstm core_;
    Tensor initial_hidden_, initial_cell_;
    nn::Linear head_;
};

}  // namespace forge::nam::train
