#include "kernels/nam_activation.h"

#include "kernels/scalar/activation_math.h"

#include <cmath>

namespace forge::kernels::scalar {
namespace {

float leaky_hardtanh(float x, const NamActivationParams& p) {
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
void map(std::span<float> x, F f) {
    for (float& v : x) v = f(v);
}

}  // namespace

void nam_activation(NamActivation op, const NamActivationParams& p, std::span<float> x) noexcept {
    switch (op) {
        case NamActivation::Identity: return;
        case NamActivation::Tanh: map(x, [](float v) { return std::tanh(v); }); return;
        case NamActivation::FastTanh: map(x, fast_tanh); return;
        case NamActivation::Hardtanh: map(x, [](float v) { return v < -1.0f ? -1.0f : (v > 1.0f ? 1.0f : v); }); return;
        case NamActivation::Relu: map(x, [](float v) { return v > 0.0f ? v : 0.0f; }); return;
        case NamActivation::LeakyRelu:
            map(x, [s = p.negative_slope](float v) { return v > 0.0f ? v : s * v; });
            return;
        case NamActivation::Sigmoid: map(x, sigmoid); return;
        case NamActivation::Silu: map(x, [](float v) { return v * sigmoid(v); }); return;
        case NamActivation::Hardswish: map(x, hardswish); return;
        case NamActivation::LeakyHardtanh: map(x, [&p](float v) { return leaky_hardtanh(v, p); }); return;
        case NamActivation::Softsign: map(x, [](float v) { return v / (1.0f + std::fabs(v)); }); return;
    }
}

void nam_gate(std::span<float> out, std::span<const float> gate) noexcept {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] *= gate[i];
}

void nam_blend(std::span<float> out, std::span<const float> alpha, std::span<const float> pre) noexcept {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = alpha[i] * out[i] + (1.0f - alpha[i]) * pre[i];
}

}  // namespace forge::kernels::scalar
