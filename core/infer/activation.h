// The activation and gating ops of NAM's real-time models (models/nam) on raw rows: one
// activation function applied in place, and the two ways a gated or blended WaveNet layer
// combines the halves of its doubled bottleneck. Inline calls into the active kernel backend:
// nothing here allocates, copies or costs a call, since they run on the audio thread.
#pragma once

#include "kernels/backend.h"
#include "kernels/binary.h"
#include "kernels/blend.h"
#include "kernels/unary.h"

#include <span>

namespace forge::infer {

// The functions (kernels/unary.h: one list for every layer) and the parameters of the
// parameterised ones.
using kernels::UnaryOp;
using kernels::UnaryParams;

// x[i] = f(x[i]), in place.
inline void activate(UnaryOp op, const UnaryParams& params, std::span<float> x) noexcept {
    kernels::active::unary(op, x, x, params);
}

// Gated: out[i] = out[i] * gate[i] (both already through their activations; binary Mul).
inline void gate(std::span<float> out, std::span<const float> gate) noexcept {
    kernels::active::binary(kernels::BinaryOp::Mul, out, gate, out);
}

// Blended: out[i] = alpha[i] * out[i] + (1 - alpha[i]) * pre[i] (pre: out before activation).
inline void blend(std::span<float> out, std::span<const float> alpha, std::span<const float> pre) noexcept {
    kernels::active::blend(out, alpha, pre);
}

}  // namespace forge::infer
