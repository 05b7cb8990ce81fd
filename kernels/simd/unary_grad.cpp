// The activation derivatives with xsimd; the same formulas as kernels/scalar/unary_grad.cpp.
#include "kernels/unary_grad.h"

#include "kernels/simd/vector_math.h"

#include <limits>

namespace forge::kernels::simd {
namespace {

constexpr float kSqrt2OverPi = 0.79788456080286535588f;
constexpr float kInvSqrt2 = 0.70710678118654752440f;
constexpr float kInvSqrt2Pi = 0.39894228040143267794f;
constexpr float kGeluCubic = 0.044715f;

Batch derivative(UnaryOp op, Batch x) {
    const Batch one(1.0f), half(0.5f), zero(0.0f);
    switch (op) {
        case UnaryOp::Exp: return xsimd::exp(x);
        case UnaryOp::Log: return one / x;
        case UnaryOp::Sqrt: return half / xsimd::sqrt(x);
        case UnaryOp::Rsqrt: return Batch(-0.5f) / (x * xsimd::sqrt(x));
        case UnaryOp::Tanh: {
            const Batch t = exact_tanh(x);
            return one - t * t;
        }
        case UnaryOp::Sigmoid: {
            const Batch s = sigmoid(x);
            return s * (one - s);
        }
        case UnaryOp::Silu: {
            const Batch s = sigmoid(x);
            return s * (one + x * (one - s));
        }
        case UnaryOp::GeluTanh: {
            const Batch t = exact_tanh(kSqrt2OverPi * (x + kGeluCubic * x * x * x));
            return half * (one + t) + half * x * (one - t * t) * kSqrt2OverPi * (one + 3.0f * kGeluCubic * x * x);
        }
        case UnaryOp::GeluErf:
            return half * erfc(-x * Batch(kInvSqrt2)) + x * kInvSqrt2Pi * xsimd::exp(Batch(-0.5f) * x * x);
        case UnaryOp::Relu: return xsimd::select(x > zero, one, zero);
        case UnaryOp::Neg: return Batch(-1.0f);
        case UnaryOp::Abs: return xsimd::select(x > zero, one, xsimd::select(x < zero, Batch(-1.0f), zero));
        case UnaryOp::Identity: return one;
        // NAM's inference-only functions: no op records them for a backward pass.
        case UnaryOp::FastTanh:
        case UnaryOp::Hardtanh:
        case UnaryOp::LeakyRelu:
        case UnaryOp::Hardswish:
        case UnaryOp::LeakyHardtanh:
        case UnaryOp::Softsign: return Batch(std::numeric_limits<float>::quiet_NaN());
    }
    return zero;
}

}  // namespace

void unary_backward(UnaryOp op, std::span<const float> x, std::span<const float> dy, std::span<float> dx) noexcept {
    const std::size_t n = x.size();
    std::size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        const Batch d = derivative(op, Batch::load_unaligned(x.data() + i));
        (Batch::load_unaligned(dy.data() + i) * d).store_unaligned(dx.data() + i);
    }
    if (i < n) {
        const Batch d = derivative(op, load_tail(x.data() + i, n - i, 1.0f));
        store_tail(load_tail(dy.data() + i, n - i, 0.0f) * d, dx.data() + i, n - i);
    }
}

}  // namespace forge::kernels::simd
