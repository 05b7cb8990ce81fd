// The element-wise half of one LSTM step for one sequence, in the gate order of PyTorch's
// nn.LSTM and NAM (i, f, g, o):
//
//   i = σ(z_i)   f = σ(z_f)   g = tanh(z_g)   o = σ(z_o)
//   c = f·c + i·g                h = o·tanh(c)
//
// The matrix product that makes z (= W·[x, h] + b) is the caller's (a matmul or a NAM
// matrix-vector loop); this is the one definition of the cell's nonlinearity, shared by NAM's
// real-time LSTM (models/nam/lstm.cpp) and the trainable one (core/ops/lstm.cpp).
//
//   gates: the 4H pre-activations z, overwritten with the activated gates i, f, g, o (the
//          backward pass needs them)
//   c:     the H cell values, c_{t-1} in, c_t out
//   h:     the H outputs (may not overlap gates or c)
//   fast:  NeuralAmpModelerCore's opt-in approximations: fast_tanh for tanh, and
//          σ(x) = (fast_tanh(x/2) + 1) / 2
#pragma once

#include <span>

namespace forge::kernels {

namespace scalar {
void lstm_cell(std::span<float> gates, std::span<float> c, std::span<float> h, bool fast) noexcept;
}
namespace simd {
void lstm_cell(std::span<float> gates, std::span<float> c, std::span<float> h, bool fast) noexcept;
}

}  // namespace forge::kernels
