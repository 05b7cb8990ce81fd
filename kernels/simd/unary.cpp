#include "kernels/unary.h"

#include "kernels/simd/unary_batch.h"

namespace forge::kernels::simd {

void unary(UnaryOp op, std::span<const float> x, std::span<float> y, const UnaryParams& params) noexcept {
    with_unary(op, params, [x, y](auto f) { map_batches(x, y, f); });
}

}  // namespace forge::kernels::simd
