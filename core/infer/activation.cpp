#include "core/infer/activation.h"

#include "kernels/backend.h"
#include "kernels/binary.h"
#include "kernels/blend.h"

namespace forge::infer {

void activate(UnaryOp op, const UnaryParams& params, std::span<float> x) noexcept {
    kernels::active::unary(op, x, x, params);
}

void gate(std::span<float> out, std::span<const float> gate) noexcept {
    kernels::active::binary(kernels::BinaryOp::Mul, out, gate, out);
}

void blend(std::span<float> out, std::span<const float> alpha, std::span<const float> pre) noexcept {
    kernels::active::blend(out, alpha, pre);
}

}  // namespace forge::infer
