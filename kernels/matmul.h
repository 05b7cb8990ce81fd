// Matrix multiplication: C = A·B over f32, with B in f32 or f16 (weights stored as half).
//
// Operands are described by two strides, so a transposed operand is just a different pair:
// A(i, p) = a[i*row_stride + p*col_stride]. The LLM case y = x·Wᵀ, with W stored [N, K]
// row-major, is B(p, j) = w[j*K + p]: row_stride 1, col_stride K.
//
// One call computes one block of C over the whole k range (k is never split across calls,
// so every element of C is reduced in one fixed order). The front-end cuts C into blocks,
// runs them on its threads, and hands each call `matmul_scratch_floats` floats of scratch
// for packing. The simd kernels pack panels of A and B into that scratch (GotoBLAS-style)
// and run a register-tiled micro-kernel; a block with one row (matrix-vector, memory bound)
// takes a separate streaming path. f16 panels are widened to f32 while packing, so a whole
// f32 copy of the weights never exists.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace forge::kernels {

// A read-only matrix operand of element type T: element (r, c) is data[r*row_stride + c*col_stride].
template <typename T>
struct MatrixView {
    const T* data;
    std::int64_t row_stride;
    std::int64_t col_stride;
};

// The row-major output: element (i, j) is data[i*row_stride + j]. Overwritten, not accumulated.
struct OutputView {
    float* data;
    std::int64_t row_stride;
};

// C[m, n] = A[m, k] · B[k, n] for one block of C.
template <typename BElement>
struct MatmulBlock {
    std::int64_t m, n, k;
    MatrixView<float> a;
    MatrixView<BElement> b;
    OutputView c;
};

using MatmulF32 = MatmulBlock<float>;
using MatmulF16 = MatmulBlock<std::uint16_t>;  // B holds f16 bit patterns

// matmul_rows is the same product with one more promise: row i of C is the same bits whatever
// m is, because a one-row block sums in the GEMM's order (the matrix-vector path of matmul
// sums in another; the simd one-row kernel of matmul_rows transposes W in registers instead
// of packing it, and decodes as fast; a block of a few rows, up to 32 — a speculative draft
// being verified — transposes each 16-row group of W once into a small panel that all its rows
// sweep, so W is still read once, without the 12-row tiles' packing). The inference front-end batches rows of unrelated
// sequences and needs that.
// (The scalar kernel keeps the promise with any m: it is one fixed-order sum per element.)
//
// matmul_bf16 is the product of mixed-precision training (`--precision bf16`, what
// torch.autocast(cpu, bfloat16) does to a matmul): f32 operands rounded to bf16 as they are
// read, f32 sums. Its definition (the scalar kernel) is the arithmetic of AVX-512 BF16's
// VDPBF16PS, so the simd kernel reproduces it bit for bit:
//   - each operand value: an f32 subnormal becomes a zero of its sign, every other value is
//     rounded to the nearest bf16, ties to even (f32_to_bf16; VCVTNE2PS2BF16 does the same);
//   - each element of C: k is cut into panels of kBf16PanelDepth steps from p = 0; a panel sums
//     the pairs of steps (p, p + 1), p even, from zero as acc = fma(a[p+1], b[p+1], acc), then
//     acc = fma(a[p], b[p], acc): a bf16 product is exact, so each step rounds once to f32,
//     and a subnormal acc is flushed to a zero of its sign (the instruction's FTZ). An odd k's
//     last step pairs with zeros. The panels' sums are then added in order, c = panel + c.
// It takes the same scratch as matmul (matmul_scratch_floats). Where the CPU has no AVX-512
// BF16 the simd kernel runs the same steps as f32 FMAs: the same bits, except that it does
// not flush sums below 2^-126 (far below anything a training step produces).
// An AMX (TDPBF16PS) kernel would be one more implementation of this function, tested against
// the scalar one with a bound where its internal order differs.
inline constexpr std::int64_t kBf16PanelDepth = 256;

namespace scalar {
std::size_t matmul_scratch_floats(std::int64_t m, std::int64_t n, std::int64_t k) noexcept;
void matmul(const MatmulF32& block, std::span<float> scratch) noexcept;
void matmul(const MatmulF16& block, std::span<float> scratch) noexcept;
void matmul_rows(const MatmulF32& block, std::span<float> scratch) noexcept;
void matmul_rows(const MatmulF16& block, std::span<float> scratch) noexcept;
void matmul_bf16(const MatmulF32& block, std::span<float> scratch) noexcept;
}  // namespace scalar

namespace simd {
std::size_t matmul_scratch_floats(std::int64_t m, std::int64_t n, std::int64_t k) noexcept;
void matmul(const MatmulF32& block, std::span<float> scratch) noexcept;
void matmul(const MatmulF16& block, std::span<float> scratch) noexcept;
void matmul_rows(const MatmulF32& block, std::span<float> scratch) noexcept;
void matmul_rows(const MatmulF16& block, std::span<float> scratch) noexcept;
void matmul_bf16(const MatmulF32& block, std::span<float> scratch) noexcept;
// "avx512_bf16" or "fma" (the fallback): which instructions run matmul_bf16 in this build.
const char* matmul_bf16_path() noexcept;
}  // namespace simd

}  // namespace forge::kernels
