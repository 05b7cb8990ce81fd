// One LSTM layer run over a whole sequence (PyTorch's nn.LSTM cell, batch first), with the
// weights laid out as NeuralAmpModelerCore stores them: one matrix W [4H, I+H] acting on the
// concatenation [x_t, h_{t-1}], one bias b [4H] (PyTorch's b_ih + b_hh), gate order i, f, g, o:
//
//   z = W·[x_t, h_{t-1}] + b;   i, f, o = σ(z_i), σ(z_f), σ(z_o);   g = tanh(z_g)
//   c_t = f ⊙ c_{t-1} + i ⊙ g;  h_t = o ⊙ tanh(c_t)
//
// The forward keeps what backpropagation through time needs (every step's [x_t, h_{t-1}],
// activated gates and cell state), time-major so each step is one contiguous [B, ·] block.
// Each step is one matmul kernel call; the whole sequence runs on the calling thread, so the
// result does not depend on the thread count.
#pragma once

#include "core/tensor.h"

namespace forge {

struct LstmSequence {
    Tensor states;  // [B, T, 2H]: h_t (first H) and c_t (last H) of every step
    // Saved for the backward (time-major):
    Tensor inputs;  // [T, B, I+H]: [x_t, h_{t-1}]
    Tensor gates;   // [T, B, 4H]: i, f, g, o after their activations
    Tensor cells;   // [T+1, B, H]: c_{-1} = c0, then c_t
};

// x [B, T, I], w [4H, I+H], b [4H], h0 and c0 [B, H] (all f32).
LstmSequence lstm_sequence(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& h0, const Tensor& c0);

struct LstmSequenceGrads {
    Tensor x, w, b, h0, c0;  // shaped like the forward's operands
};

// Backpropagation through time: the gradients of L given dL/d(states) [B, T, 2H] (a gradient
// may reach both the hidden and the cell state of any step).
LstmSequenceGrads lstm_sequence_backward(const Tensor& w, const LstmSequence& forward, const Tensor& grad_states);

}  // namespace forge
