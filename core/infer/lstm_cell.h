// The element-wise half of one LSTM step (gates i, f, g, o to the new cell and hidden state),
// for NAM's real-time LSTM (models/nam/lstm.cpp): the math is kernels/lstm_cell.h's, whose
// header states it; this is the models' way to it, an inline call into the active backend that
// neither allocates nor copies (it runs once per sample and layer on the audio thread).
#pragma once

#include "kernels/backend.h"
#include "kernels/lstm_cell.h"

#include <span>

namespace forge::infer {

// gates: the 4H pre-activations in, the activated gates out; c: the H cell values, updated;
// h: the H outputs. fast: NeuralAmpModelerCore's approximate tanh and sigmoid.
inline void lstm_cell(std::span<float> gates, std::span<float> c, std::span<float> h, bool fast) noexcept {
    kernels::active::lstm_cell(gates, c, h, fast);
}

}  // namespace forge::infer
