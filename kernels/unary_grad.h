// Backward of the element-wise functions: dx[i] = dy[i] * f'(x[i]).
//
// One pass from the saved input, instead of a chain of tensor ops per derivative (silu'
// alone would take five): the backward of an activation then costs what its forward does.
// dx may be the same memory as dy. NAM's inference-only functions (the ones after Identity in
// kernels/unary.h) have no derivative here: dx is NaN for them; Identity's is 1.
#pragma once

#include "kernels/unary.h"

#include <span>

namespace forge::kernels {

namespace scalar {
void unary_backward(UnaryOp op, std::span<const float> x, std::span<const float> dy, std::span<float> dx) noexcept;
}
namespace simd {
void unary_backward(UnaryOp op, std::span<const float> x, std::span<const float> dy, std::span<float> dx) noexcept;
}

}  // namespace forge::kernels
