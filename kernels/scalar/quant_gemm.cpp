// Quantized GEMM, the specification: one scalar dot product per output.
#include "kernels/quant_gemm.h"

#include "kernels/quant_dot.h"

namespace forge::kernels::scalar {

namespace {
constexpr auto kDot = [](auto w, auto a) { return dot(w, a); };
}  // namespace

void gemm(const QuantGemmQ4_0& g) noexcept { gemm_by_dots(g, kDot); }
void gemm(const QuantGemmQ8_0& g) noexcept { gemm_by_dots(g, kDot); }

}  // namespace forge::kernels::scalar
