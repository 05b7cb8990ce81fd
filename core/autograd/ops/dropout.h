// Differentiable inverted dropout with a counter-based mask.
//
// The mask is a pure function of (key, element index) (core/random/counter_rng.h): running
// the same forward again with the same key, as activation recomputation does, drops exactly
// the same elements. Callers derive a fresh key per step and per layer, e.g.
// random::stream_key(seed, step, layer).
#pragma once

#include "core/tensor.h"

#include <cstdint>

namespace forge::ag {

// x * mask / (1 - p) when training; x itself when not (or p == 0).
Tensor dropout(const Tensor& x, float p, std::uint64_t key, bool training);

}  // namespace forge::ag
