// The executable specification of the activation derivatives (see kernels/unary_grad.h).
#include "kernels/unary_grad.h"

#include "kernels/scalar/activation_math.h"

#include <cmath>
#include <cstddef>
#include <limits>

namespace forge::kernels::scalar {
namespace {

constexpr float kSqrt2OverPi = 0.79788456080286535588f;
constexpr float kInvSqrt2 = 0.70710678118654752440f;
constexpr float kInvSqrt2Pi = 0.39894228040143267794f;
constexpr float kGeluCubic = 0.044715f;

float derivative(UnaryOp op, float x) {
    switch (op) {
        case UnaryOp::Exp: return std::exp(x);
        case UnaryOp::Log: return 1.0f / x;
        case UnaryOp::Sqrt: return 0.5f / std::sqrt(x);
        case UnaryOp::Rsqrt: return -0.5f / (x * std::sqrt(x));
        case UnaryOp::Tanh: {
            const float t = std::tanh(x);
            return 1.0f - t * t;
        }
        case UnaryOp::Sigmoid: {
            const float s = sigmoid(x);
            return s * (1.0f - s);
        }
        case UnaryOp::Silu: {
            const float s = sigmoid(x);
            return s * (1.0f + x * (1.0f - s));
        }
        case UnaryOp::GeluTanh: {
            const float t = std::tanh(kSqrt2OverPi * (x + kGeluCubic * x * x * x));
            return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * x * x);
        }
        // d/dx x·Φ(x) = Φ(x) + x·φ(x); erfc keeps Φ accurate in the negative tail.
        case UnaryOp::GeluErf:
            return 0.5f * std::erfc(-x * kInvSqrt2) + x * kInvSqrt2Pi * std::exp(-0.5f * x * x);
        case UnaryOp::Relu: return x > 0.0f ? 1.0f : 0.0f;
        case UnaryOp::Neg: return -1.0f;
        case UnaryOp::Abs: return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f);
        case UnaryOp::Identity: return 1.0f;
        // NAM's inference-only functions: no op records them for a backward pass.
        case UnaryOp::FastTanh:
        case UnaryOp::Hardtanh:
        case UnaryOp::LeakyRelu:
        case UnaryOp::Hardswish:
        case UnaryOp::LeakyHardtanh:
        case UnaryOp::Softsign: return std::numeric_limits<float>::quiet_NaN();
    }
    return 0.0f;
}

}  // namespace

void unary_backward(UnaryOp op, std::span<const float> x, std::span<const float> dy, std::span<float> dx) noexcept {
    for (std::size_t i = 0; i < x.size(); ++i) dx[i] = dy[i] * derivative(op, x[i]);
}

}  // namespace forge::kernels::scalar
