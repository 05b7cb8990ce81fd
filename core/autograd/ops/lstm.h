// Differentiable LSTM layer over a sequence (see core/ops/lstm.h): the VJP is
// backpropagation through time over the steps the forward saved.
#pragma once

#include "core/tensor.h"

namespace forge::ag {

// x [B, T, I], w [4H, I+H], b [4H], h0 and c0 [B, H] -> [B, T, 2H]: every step's hidden
// state h_t (first H) and cell state c_t (last H). Gradients may flow into both halves, so
// a later chunk can start from narrow(states, time, T-1, 1) and train through it.
Tensor lstm_sequence(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& h0, const Tensor& c0);

}  // namespace forge::ag
