#include "kernels/matmul.h"

#include "kernels/half.h"

namespace forge::kernels::scalar {
namespace {

float widen(float value) { return value; }
float widen(std::uint16_t half) { return kernels::f16_to_f32(half); }

// The definition: each element of C is one dot product, summed in order of p.
template <typename BElement>
void multiply(const MatmulBlock<BElement>& block) {
    const auto& [m, n, k, a, b, c] = block;
    for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
            float sum = 0.0f;
            for (std::int64_t p = 0; p < k; ++p) {
                sum += a.data[i * a.row_stride + p * a.col_stride] * widen(b.data[p * b.row_stride + j * b.col_stride]);
            }
            c.data[i * c.row_stride + j] = sum;
        }
    }
}

}  // namespace

std::size_t matmul_scratch_floats(std::int64_t, std::int64_t, std::int64_t) noexcept { return 0; }

void matmul(const MatmulF32& block, std::span<float>) noexcept { multiply(block); }
void matmul(const MatmulF16& block, std::span<float>) noexcept { multiply(block); }
void matmul_rows(const MatmulF32& block, std::span<float>) noexcept { multiply(block); }
void matmul_rows(const MatmulF16& block, std::span<float>) noexcept { multiply(block); }

}  // namespace forge::kernels::scalar
