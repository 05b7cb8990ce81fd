// Tensors filled from the counter-based generator (core/random/counter_rng.h): element i of
// the result depends only on (key, i), so the same call gives the same tensor on any number
// of threads, and a recompute (say, of a dropout mask) reproduces it exactly.
#pragma once

#include "core/tensor.h"

#include <cstdint>

namespace forge::random {

Tensor normal_tensor(const Shape& shape, std::uint64_t key, float mean = 0.0f, float stddev = 1.0f);
Tensor uniform_tensor(const Shape& shape, std::uint64_t key, float low = 0.0f, float high = 1.0f);

// Inverted-dropout multipliers: 1/keep with probability keep, else 0.
Tensor dropout_mask(const Shape& shape, std::uint64_t key, float keep);

}  // namespace forge::random
