#include "kernels/unary.h"

#include "kernels/scalar/activation_math.h"

#include <cmath>

namespace forge::kernels::scalar {
namespace {

// sqrt(2 / pi), the constant inside the tanh approximation of GELU.
constexpr float kSqrt2OverPi = 0.79788456080286535588f;
constexpr float kInvSqrt2 = 0.70710678118654752440f;

// The GELU approximations are written in forms that avoid cancellation for negative x:
//   0.5 (1 + tanh(u)) = 1 / (1 + exp(-2u))   and   1 + erf(z) = erfc(-z),
// so far in the negative tail the small result keeps its relative accuracy.
float gelu_tanh(float x) {
    const float u = kSqrt2OverPi * (x + 0.044715f * x * x * x);
    return x / (1.0f + std::exp(-2.0f * u));
}

float gelu_erf(float x) { return 0.5f * x * std::erfc(-x * kInvSqrt2); }

float hardtanh(float x) { return x < -1.0f ? -1.0f : (x > 1.0f ? 1.0f : x); }

float leaky_hardtanh(float x, const UnaryParams& p) {
    if (x < p.min_val) return (x - p.min_val) * p.min_slope + p.min_val;
    if (x > p.max_val) return (x - p.max_val) * p.max_slope + p.max_val;
    return x;
}

float hardswish(float x) {
    const float t = x + 3.0f;
    const float clamped = t < 0.0f ? 0.0f : (t > 6.0f ? 6.0f : t);
    return x * clamped * (1.0f / 6.0f);
}

template <typename F>
void map(std::span<const float> x, std::span<float> y, F f) {
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = f(x[i]);
}

}  // namespace

void unary(UnaryOp op, std::span<const float> x, std::span<float> y, const UnaryParams& p) noexcept {
    switch (op) {
        case UnaryOp::Exp: map(x, y, [](float v) { return std::exp(v); }); return;
        case UnaryOp::Log: map(x, y, [](float v) { return std::log(v); }); return;
        case UnaryOp::Sqrt: map(x, y, [](float v) { return std::sqrt(v); }); return;
        case UnaryOp::Rsqrt: map(x, y, [](float v) { return 1.0f / std::sqrt(v); }); return;
        case UnaryOp::Tanh: map(x, y, [](float v) { return std::tanh(v); }); return;
        case UnaryOp::Sigmoid: map(x, y, sigmoid); return;
        case UnaryOp::Silu: map(x, y, [](float v) { return v * sigmoid(v); }); return;
        case UnaryOp::GeluTanh: map(x, y, gelu_tanh); return;
        case UnaryOp::GeluErf: map(x, y, gelu_erf); return;
        // Written so that NaN passes through (NaN < 0 is false).
        case UnaryOp::Relu: map(x, y, [](float v) { return v < 0.0f ? 0.0f : v; }); return;
        case UnaryOp::Neg: map(x, y, [](float v) { return -v; }); return;
        case UnaryOp::Abs: map(x, y, [](float v) { return std::fabs(v); }); return;
        case UnaryOp::Identity: map(x, y, [](float v) { return v; }); return;
        case UnaryOp::FastTanh: map(x, y, fast_tanh); return;
        case UnaryOp::Hardtanh: map(x, y, hardtanh); return;
        case UnaryOp::LeakyRelu: map(x, y, [s = p.negative_slope](float v) { return v > 0.0f ? v : s * v; }); return;
        case UnaryOp::Hardswish: map(x, y, hardswish); return;
        case UnaryOp::LeakyHardtanh: map(x, y, [&p](float v) { return leaky_hardtanh(v, p); }); return;
        case UnaryOp::Softsign: map(x, y, [](float v) { return v / (1.0f + std::fabs(v)); }); return;
    }
}

}  // namespace forge::kernels::scalar
