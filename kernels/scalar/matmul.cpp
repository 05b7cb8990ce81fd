#include "kernels/matmul.h"

#include "kernels/half.h"

#include <algorithm>
#include <bit>
#include <cmath>

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

// --- bf16 operands, f32 sums: the definition of matmul_bf16 (kernels/matmul.h) ---

float bf16_operand(float value) { return kernels::bf16_to_f32(kernels::f32_to_bf16_flushed(value)); }

// A subnormal sum becomes a zero of its sign, as VDPBF16PS flushes its results.
float flush_subnormal(float value) { return std::fpclassify(value) == FP_SUBNORMAL ? std::copysign(0.0f, value) : value; }

// One element of C: pairs of steps within panels of kBf16PanelDepth, the panels added in order.
float bf16_dot(MatrixView<float> a, MatrixView<float> b, std::int64_t i, std::int64_t j, std::int64_t k) {
    const auto a_at = [&](std::int64_t p) { return p < k ? bf16_operand(a.data[i * a.row_stride + p * a.col_stride]) : 0.0f; };
    const auto b_at = [&](std::int64_t p) { return p < k ? bf16_operand(b.data[p * b.row_stride + j * b.col_stride]) : 0.0f; };
    float total = 0.0f;
    for (std::int64_t first = 0; first < k; first += kBf16PanelDepth) {
        const std::int64_t last = std::min(first + kBf16PanelDepth, k);
        float panel = 0.0f;
        for (std::int64_t p = first; p < last; p += 2) {
            panel = flush_subnormal(std::fma(a_at(p + 1), b_at(p + 1), panel));  // the odd step first
            panel = flush_subnormal(std::fma(a_at(p), b_at(p), panel));
        }
        total = first == 0 ? panel : panel + total;
    }
    return total;
}

}  // namespace

void matmul_bf16(const MatmulF32& block, std::span<float>) noexcept {
    const auto& [m, n, k, a, b, c] = block;
    for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) c.data[i * c.row_stride + j] = bf16_dot(a, b, i, j, k);
    }
}

std::size_t matmul_scratch_floats(std::int64_t, std::int64_t, std::int64_t) noexcept { return 0; }

void matmul(const MatmulF32& block, std::span<float>) noexcept { multiply(block); }
void matmul(const MatmulF16& block, std::span<float>) noexcept { multiply(block); }
void matmul_rows(const MatmulF32& block, std::span<float>) noexcept { multiply(block); }
void matmul_rows(const MatmulF16& block, std::span<float>) noexcept { multiply(block); }

}  // namespace forge::kernels::scalar
