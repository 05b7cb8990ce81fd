#include "core/infer/activation.h"

#include "kernels/backend.h"

namespace forge::infer {

void activate(NamActivation op, const NamActivationParams& params, std::span<float> x) noexcept {
    kernels::active::nam_activation(op, params, x);
}

void gate(std::span<float> out, std::span<const float> gate) noexcept { kernels::active::nam_gate(out, gate); }

void blend(std::span<float> out, std::span<const float> alpha, std::span<const float> pre) noexcept {
    kernels::active::nam_blend(out, alpha, pre);
}

}  // namespace forge::infer
