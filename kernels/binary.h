// Element-wise functions of two f32 inputs along one row: y[i] = a[i] op b[i].
//
// Broadcasting is the front-end's business except for its innermost step: an operand of
// size 1 is a scalar broadcast over the whole row (stride 0); otherwise it has y.size()
// elements. y may be the same memory as a full-size operand (in place).
#pragma once

#include <span>

namespace forge::kernels {

enum class BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Maximum,  // NaN if either operand is NaN
    Minimum,  // NaN if either operand is NaN
};

namespace scalar {
void binary(BinaryOp op, std::span<const float> a, std::span<const float> b, std::span<float> y) noexcept;
}
namespace simd {
void binary(BinaryOp op, std::span<const float> a, std::span<const float> b, std::span<float> y) noexcept;
}

}  // namespace forge::kernels
