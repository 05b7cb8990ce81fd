// One NAM WaveNet layer in one call (the common layer: no FiLM, ungrouped convolutions), for
// models/nam/wavenet_layer.cpp: kernels/nam_wavenet.h states the math and the layout of the
// call, which is raw pointers and shapes only; this is the models' way to it, an inline call
// into the active backend (no allocation, no copy: it runs on the audio thread).
#pragma once

#include "kernels/backend.h"
#include "kernels/nam_wavenet.h"

namespace forge::infer {

// How a layer combines the halves of a doubled bottleneck: none, gated or blended.
using NamGating = kernels::NamGating;
// The layer's shape, weights (input-major) and signals for one block.
using NamWaveNetLayer = kernels::NamWaveNetLayer;

inline void nam_wavenet_layer(const NamWaveNetLayer& layer) noexcept { kernels::active::nam_wavenet_layer(layer); }

}  // namespace forge::infer
