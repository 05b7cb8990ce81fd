// Rotary position embedding (see kernels/rope.h for the exact definition).
//
// x is f32 [seq, heads, head_dim] or [batch, seq, heads, head_dim]; positions is I32 or I64,
// [seq] (shared by every batch entry) or [batch, seq].
#pragma once

#include "core/tensor.h"
#include "kernels/rope.h"

#include <cstdint>

namespace forge {

using RopeMode = kernels::RopeMode;

struct RopeConfig {
    std::int64_t n_rot = 0;      // rotated dims per head, even, <= head_dim; 0 means all of them
    float theta_base = 10000.0f;
    float freq_scale = 1.0f;     // linear position scaling: angles use position * freq_scale
    RopeMode mode = RopeMode::Normal;
    bool inverse = false;        // rotate by -theta: the inverse (and transpose) of the rotation
};

Tensor rope(const Tensor& x, const Tensor& positions, const RopeConfig& config = {});

}  // namespace forge
