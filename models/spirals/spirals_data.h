// The two-spirals task: points on two interleaved spiral arms in the plane, one class each.
// Generated from a seed (no download); the classic hard case for a small MLP, since the
// boundary winds around the origin.
#pragma once

#include "core/tensor.h"

#include <cstdint>

namespace forge::spirals {

struct SpiralsData {
    Tensor points;  // [N, 2] f32
    Tensor labels;  // [N] i64, 0 or 1
};

// `per_class` points on each arm over `turns` turns, with Gaussian jitter `noise`.
SpiralsData make_spirals(std::int64_t per_class, std::uint64_t seed, float turns = 1.5f, float noise = 0.02f);

}  // namespace forge::spirals
