// The element-wise pieces of a Neural Amp Modeler (NAM) WaveNet layer that the generic unary
// and binary kernels lack: NAM's activation set with its parameters, and the two ways a
// layer combines the halves of a doubled ("gated" or "blended") bottleneck.
//
// The formulas follow NeuralAmpModelerCore (NAM/activations.h, NAM/gating_activations.h),
// so that a model renders the same samples as the reference player.
#pragma once

#include <span>

namespace forge::kernels {

// Spelled as kernels/unary.h spells the functions both have (Tanh, Sigmoid, Silu, Relu), and
// computed by the same definitions (kernels/scalar/activation_math.h, simd/vector_math.h).
// NAM's set is its own enum because it carries parameters (LeakyRelu, LeakyHardtanh) and has
// no derivative kernel; the file names ("ReLU", "SiLU", ...) map onto it in models/nam.
enum class NamActivation {
    Identity,
    Tanh,           // exact tanh
    FastTanh,       // Core's rational approximation (fast_tanh), opt-in
    Hardtanh,       // clamp(x, -1, 1)
    Relu,           // x > 0 ? x : 0
    LeakyRelu,      // x > 0 ? x : negative_slope * x (PReLU runs this per channel)
    Sigmoid,        // 1 / (1 + exp(-x))
    Silu,           // x * sigmoid(x)
    Hardswish,      // x * clamp(x + 3, 0, 6) / 6
    LeakyHardtanh,  // identity on [min_val, max_val], slopes min_slope / max_slope outside
    Softsign,       // x / (1 + |x|)
};

struct NamActivationParams {
    float negative_slope = 0.01f;
    float min_val = -1.0f;
    float max_val = 1.0f;
    float min_slope = 0.01f;
    float max_slope = 0.01f;
};

namespace scalar {
// x[i] = f(x[i]), in place.
void nam_activation(NamActivation op, const NamActivationParams& params, std::span<float> x) noexcept;
// Gated: out[i] = out[i] * gate[i] (out already activated, gate already through its activation).
void nam_gate(std::span<float> out, std::span<const float> gate) noexcept;
// Blended: out[i] = alpha[i] * out[i] + (1 - alpha[i]) * pre[i] (pre: out before activation).
void nam_blend(std::span<float> out, std::span<const float> alpha, std::span<const float> pre) noexcept;
}  // namespace scalar

namespace simd {
void nam_activation(NamActivation op, const NamActivationParams& params, std::span<float> x) noexcept;
void nam_gate(std::span<float> out, std::span<const float> gate) noexcept;
void nam_blend(std::span<float> out, std::span<const float> alpha, std::span<const float> pre) noexcept;
}  // namespace simd

}  // namespace forge::kernels
