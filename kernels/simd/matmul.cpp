#include "kernels/matmul.h"

#include "kernels/simd/transpose.h"
#include "kernels/simd/widen.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <utility>

namespace forge::kernels::simd {
namespace {

// --- shape of the work ----------------------------------------------------------------------
//
// The micro-tile is the block of C held in registers while the k loop runs: kTileRows rows of
// kTileVectors vectors. With AVX-512's 32 registers a 12 x 32 tile takes 24 accumulators, 2
// for a row of B and one broadcast of A (on this Zen 4 it measured ahead of 8 x 48, 14 x 32
// and 6 x 64); with 16 registers (AVX2, SSE) a 6 x 2-vector tile leaves the same headroom.
// Either keeps enough independent FMA chains in flight to cover the FMA latency.
#if defined(__AVX512F__)
constexpr std::int64_t kTileRows = 12;
constexpr std::int64_t kTileVectors = 2;
#else
constexpr std::int64_t kTileRows = 6;
constexpr std::int64_t kTileVectors = 2;
#endif
constexpr std::int64_t kTileCols = kTileVectors * kFloatLanes;

// Cache blocking (GotoBLAS): a kBlockK-deep panel of B (kBlockK x kBlockN) and a block of A
// (kBlockM x kBlockK) stay in the per-core L2 cache while the micro-kernel sweeps them.
// kBlockK is fixed, so each element of C is summed in the same order whatever the front-end's
// partition of C.
constexpr std::int64_t kBlockK = 256;
constexpr std::int64_t kBlockM = 16 * kTileRows;
constexpr std::int64_t kBlockN = 8 * kTileCols;

constexpr std::int64_t round_up(std::int64_t value, std::int64_t multiple) {
    return (value + multiple - 1) / multiple * multiple;
}

template <typename T>
MatrixView<T> offset(MatrixView<T> view, std::int64_t row, std::int64_t col) {
    return {view.data + row * view.row_stride + col * view.col_stride, view.row_stride, view.col_stride};
}

// --- packing ----------------------------------------------------------------------------------
//
// Packing lays an operand out in the order the micro-kernel reads it. Where the operand runs
// contiguously along k (A row-major, or B = Wᵀ), that is a transpose: `interleave` turns up
// to 16 contiguous lines into p-major rows, dst[p*dst_stride + l] = line l at p, writing
// `width` values per row (lines past `lines` as zeros so edge tiles need no special case).

template <typename T>
void interleave(const T* src, std::int64_t line_stride, std::int64_t lines, std::int64_t width, std::int64_t depth,
                float* dst, std::int64_t dst_stride) {
    std::int64_t p = 0;
#if defined(__AVX512F__)
    const __mmask16 written = static_cast<__mmask16>((1u << width) - 1u);
    for (; p + 16 <= depth; p += 16) {
        __m512 block[16];
        for (std::int64_t l = 0; l < 16; ++l) {
            block[l] = l < lines ? static_cast<__m512>(load_widened(src + l * line_stride + p)) : _mm512_setzero_ps();
        }
        transpose16(block);
        for (std::int64_t q = 0; q < 16; ++q) _mm512_mask_storeu_ps(dst + (p + q) * dst_stride, written, block[q]);
    }
#endif
    for (; p < depth; ++p) {
        for (std::int64_t l = 0; l < width; ++l) {
            dst[p * dst_stride + l] = l < lines ? widen(src[l * line_stride + p]) : 0.0f;
        }
    }
}

// Copy rows [0, rows) x depth [0, depth) of A into slivers of kTileRows rows, each sliver
// laid out p-major (the kTileRows values the micro-kernel broadcasts at step p are adjacent).
// Rows past `rows` are zero, so edge tiles run the same micro-kernel.
void pack_a(MatrixView<float> a, std::int64_t rows, std::int64_t depth, float* packed) {
    for (std::int64_t first = 0; first < rows; first += kTileRows) {
        const std::int64_t height = std::min(kTileRows, rows - first);
        float* sliver = packed + first * depth;
        const float* top = a.data + first * a.row_stride;
        if (a.col_stride == 1 && kTileRows <= 16) {
            interleave(top, a.row_stride, height, kTileRows, depth, sliver, kTileRows);
            continue;
        }
        for (std::int64_t p = 0; p < depth; ++p) {
            for (std::int64_t r = 0; r < kTileRows; ++r) {
                sliver[p * kTileRows + r] = r < height ? top[r * a.row_stride + p * a.col_stride] : 0.0f;
            }
        }
    }
}

// One sliver of B whose rows are contiguous (B row-major): copy kTileCols values per p.
template <typename T>
void pack_b_sliver_rows(MatrixView<T> b, std::int64_t depth, float* sliver) {
    for (std::int64_t p = 0; p < depth; ++p) {
        const T* row = b.data + p * b.row_stride;
        for (std::int64_t v = 0; v < kTileVectors; ++v) {
            load_widened(row + v * kFloatLanes).store_unaligned(sliver + p * kTileCols + v * kFloatLanes);
        }
    }
}

// One sliver of B whose columns are contiguous (B = Wᵀ with W row-major), `width` <=
// kTileCols of them: interleaved 16 columns at a time.
template <typename T>
void pack_b_sliver_columns(MatrixView<T> b, std::int64_t depth, std::int64_t width, float* sliver) {
    for (std::int64_t group = 0; group < kTileCols; group += 16) {
        const std::int64_t group_width = std::min<std::int64_t>(16, kTileCols - group);
        const std::int64_t lines = std::clamp<std::int64_t>(width - group, 0, group_width);
        interleave(b.data + group * b.col_stride, b.col_stride, lines, group_width, depth, sliver + group, kTileCols);
    }
}

// Copy depth [0, depth) x columns [0, cols) of B into slivers of kTileCols columns, each laid
// out p-major; columns past `cols` are zero.
template <typename T>
void pack_b(MatrixView<T> b, std::int64_t depth, std::int64_t cols, float* packed) {
    for (std::int64_t first = 0; first < cols; first += kTileCols) {
        const std::int64_t width = std::min(kTileCols, cols - first);
        float* sliver = packed + first * depth;
        const MatrixView<T> part = offset(b, 0, first);
        if (b.col_stride == 1 && width == kTileCols) {
            pack_b_sliver_rows(part, depth, sliver);
        } else if (b.row_stride == 1) {
            pack_b_sliver_columns(part, depth, width, sliver);
        } else {
            for (std::int64_t p = 0; p < depth; ++p) {
                for (std::int64_t c = 0; c < kTileCols; ++c) {
                    sliver[p * kTileCols + c] =
                        c < width ? widen(part.data[p * part.row_stride + c * part.col_stride]) : 0.0f;
                }
            }
        }
    }
}

// --- the micro-kernel -------------------------------------------------------------------------

// tile (Rows x kTileCols, rows `ldc` apart) = (accumulate ? tile : 0) + A sliver · B sliver,
// for the first Rows rows of a packed A sliver (kTileRows apart). Each element is the same
// arithmetic whatever Rows is: one FMA chain over p from zero, then the add.
template <std::int64_t Rows>
void micro_kernel(std::int64_t depth, const float* a, const float* b, float* tile, std::int64_t ldc,
                  bool accumulate) {
    FloatBatch acc[Rows][kTileVectors];
#pragma GCC unroll 32
    for (std::int64_t r = 0; r < Rows; ++r) {
#pragma GCC unroll 4
        for (std::int64_t v = 0; v < kTileVectors; ++v) acc[r][v] = FloatBatch(0.0f);
    }
    for (std::int64_t p = 0; p < depth; ++p) {
        FloatBatch row[kTileVectors];
#pragma GCC unroll 4
        for (std::int64_t v = 0; v < kTileVectors; ++v) {
            row[v] = FloatBatch::load_unaligned(b + p * kTileCols + v * kFloatLanes);
        }
#pragma GCC unroll 32
        for (std::int64_t r = 0; r < Rows; ++r) {
            const FloatBatch broadcast(a[p * kTileRows + r]);
#pragma GCC unroll 4
            for (std::int64_t v = 0; v < kTileVectors; ++v) acc[r][v] = xsimd::fma(broadcast, row[v], acc[r][v]);
        }
    }
#pragma GCC unroll 32
    for (std::int64_t r = 0; r < Rows; ++r) {
#pragma GCC unroll 4
        for (std::int64_t v = 0; v < kTileVectors; ++v) {
            float* out = tile + r * ldc + v * kFloatLanes;
            if (accumulate) acc[r][v] += FloatBatch::load_unaligned(out);
            acc[r][v].store_unaligned(out);
        }
    }
}

// --- bf16 operands (matmul_bf16) -----------------------------------------------------------
//
// The same packed panels, each rounded in place to bf16 once it is packed: steps p and p + 1
// of a line become one 32-bit pair (p in the low half, p + 1 in the high half, VDPBF16PS's
// layout), stored where the f32 values were, so a panel of `depth` steps keeps `width` pairs
// per step pair and takes half the room. Writing pair row q (at q x width) never passes the
// f32 rows still to be read (from 2q x width on). The pairs are kept in float storage and only
// reinterpreted in registers.
static_assert(kBlockK == kBf16PanelDepth, "matmul_bf16 sums panels of kBf16PanelDepth steps, the GEMM's");

std::int64_t step_pairs(std::int64_t depth) { return (depth + 1) / 2; }

#if defined(__AVX512BF16__)
const char* const kBf16Path = "avx512_bf16";

// 16 values of two f32 rows (steps p and p + 1) as 16 pairs of bf16 (VCVTNE2PS2BF16 rounds as
// f32_to_bf16_flushed), step p in the low half of each 32-bit lane.
__m512 round_pairs(__m512 even, __m512 odd) {
    const __m512i halves = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(odd, even));  // even in 0..15, odd in 16..31
    const __m512i interleave = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7, 22,
                                                6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    return _mm512_castsi512_ps(_mm512_permutexvar_epi16(interleave, halves));
}

// One pair row: `width` lines of steps p (`even`) and p + 1 (`odd`, null past the panel's end).
void round_panel_rows(const float* even, const float* odd, std::int64_t width, float* pairs) {
    for (std::int64_t l = 0; l < width; l += 16) {
        const auto lanes = static_cast<__mmask16>((1u << std::min<std::int64_t>(16, width - l)) - 1u);
        const __m512 e = _mm512_maskz_loadu_ps(lanes, even + l);
        const __m512 o = odd != nullptr ? _mm512_maskz_loadu_ps(lanes, odd + l) : _mm512_setzero_ps();
        _mm512_mask_storeu_ps(pairs + l, lanes, round_pairs(e, o));
    }
}
#else
const char* const kBf16Path = "fma";

void round_panel_rows(const float* even, const float* odd, std::int64_t width, float* pairs) {
    for (std::int64_t l = 0; l < width; ++l) {
        const std::uint32_t low = kernels::f32_to_bf16_flushed(even[l]);
        const std::uint32_t high = odd != nullptr ? kernels::f32_to_bf16_flushed(odd[l]) : 0u;
        pairs[l] = std::bit_cast<float>(low | high << 16);
    }
}
#endif

// `slivers` packed slivers of `width` lines x `depth` steps (pack_a's or pack_b's layout),
// rounded in place to slivers of width x step_pairs(depth) pairs.
void round_panel(float* packed, std::int64_t slivers, std::int64_t width, std::int64_t depth) {
    const std::int64_t pairs = step_pairs(depth);
    for (std::int64_t s = 0; s < slivers; ++s) {
        const float* sliver = packed + s * width * depth;
        float* rounded = packed + s * width * pairs;
        for (std::int64_t q = 0; q < pairs; ++q) {
            const float* odd = 2 * q + 1 < depth ? sliver + (2 * q + 1) * width : nullptr;
            round_panel_rows(sliver + 2 * q * width, odd, width, rounded + q * width);
        }
    }
}

// The bf16 micro-kernel: as micro_kernel, over `pairs` step pairs of rounded slivers, each
// accumulator the definition's chain (odd step, then even step, per pair).
template <std::int64_t Rows>
void micro_kernel_bf16(std::int64_t pairs, const float* a, const float* b, float* tile, std::int64_t ldc,
                       bool accumulate) {
#if defined(__AVX512BF16__)
    static_assert(kTileVectors * 16 == kTileCols);
    __m512 acc[Rows][kTileVectors];
#pragma GCC unroll 32
    for (std::int64_t r = 0; r < Rows; ++r) {
#pragma GCC unroll 4
        for (std::int64_t v = 0; v < kTileVectors; ++v) acc[r][v] = _mm512_setzero_ps();
    }
    for (std::int64_t q = 0; q < pairs; ++q) {
        __m512bh row[kTileVectors];
#pragma GCC unroll 4
        for (std::int64_t v = 0; v < kTileVectors; ++v) {
            row[v] = reinterpret_cast<__m512bh>(_mm512_loadu_ps(b + q * kTileCols + v * 16));
        }
#pragma GCC unroll 32
        for (std::int64_t r = 0; r < Rows; ++r) {
            const auto broadcast = reinterpret_cast<__m512bh>(_mm512_set1_ps(a[q * kTileRows + r]));
#pragma GCC unroll 4
            for (std::int64_t v = 0; v < kTileVectors; ++v) acc[r][v] = _mm512_dpbf16_ps(acc[r][v], broadcast, row[v]);
        }
    }
#pragma GCC unroll 32
    for (std::int64_t r = 0; r < Rows; ++r) {
#pragma GCC unroll 4
        for (std::int64_t v = 0; v < kTileVectors; ++v) {
            float* out = tile + r * ldc + v * 16;
            if (accumulate) acc[r][v] = _mm512_add_ps(acc[r][v], _mm512_loadu_ps(out));
            _mm512_storeu_ps(out, acc[r][v]);
        }
    }
#else
    // Without the instruction: a pair's two bf16 values widened (a shift, a mask) and summed by
    // two FMAs, exact products rounded once each, as VDPBF16PS rounds (save its flush to zero).
    using Bits = xsimd::batch<std::uint32_t>;
    const auto low_half = [](Bits pair) { return xsimd::bitwise_cast<FloatBatch>(pair << 16); };
    const auto high_half = [](Bits pair) { return xsimd::bitwise_cast<FloatBatch>(pair & Bits(0xffff0000u)); };
    FloatBatch acc[Rows][kTileVectors];
    for (std::int64_t r = 0; r < Rows; ++r) {
        for (std::int64_t v = 0; v < kTileVectors; ++v) acc[r][v] = FloatBatch(0.0f);
    }
    for (std::int64_t q = 0; q < pairs; ++q) {
        FloatBatch even[kTileVectors], odd[kTileVectors];
        for (std::int64_t v = 0; v < kTileVectors; ++v) {
            const Bits pair = xsimd::bitwise_cast<Bits>(FloatBatch::load_unaligned(b + q * kTileCols + v * kFloatLanes));
            even[v] = low_half(pair);
            odd[v] = high_half(pair);
        }
        for (std::int64_t r = 0; r < Rows; ++r) {
            const std::uint32_t pair = std::bit_cast<std::uint32_t>(a[q * kTileRows + r]);
            const FloatBatch a_even(std::bit_cast<float>(pair << 16)), a_odd(std::bit_cast<float>(pair & 0xffff0000u));
            for (std::int64_t v = 0; v < kTileVectors; ++v) {
                acc[r][v] = xsimd::fma(a_even, even[v], xsimd::fma(a_odd, odd[v], acc[r][v]));
            }
        }
    }
    for (std::int64_t r = 0; r < Rows; ++r) {
        for (std::int64_t v = 0; v < kTileVectors; ++v) {
            float* out = tile + r * ldc + v * kFloatLanes;
            if (accumulate) acc[r][v] += FloatBatch::load_unaligned(out);
            acc[r][v].store_unaligned(out);
        }
    }
#endif
}

// The micro-kernels by the type of their packed slivers.
enum class Operands { f32, bf16 };

template <Operands Kind, std::int64_t Rows>
void run_micro_kernel(std::int64_t depth, const float* a, const float* b, float* tile, std::int64_t ldc,
                      bool accumulate) {
    if constexpr (Kind == Operands::f32) {
        micro_kernel<Rows>(depth, a, b, tile, ldc, accumulate);
    } else {
        micro_kernel_bf16<Rows>(step_pairs(depth), a, b, tile, ldc, accumulate);
    }
}

// One tile of C, which may be cut short at the edge of the block: an edge tile is computed
// whole into a local buffer and only its valid part added to C, with the same arithmetic.
template <Operands Kind>
void run_tile(std::int64_t depth, const float* a, const float* b, float* c, std::int64_t ldc, std::int64_t rows,
              std::int64_t cols, bool accumulate) {
    if (rows == kTileRows && cols == kTileCols) {
        run_micro_kernel<Kind, kTileRows>(depth, a, b, c, ldc, accumulate);
        return;
    }
    if (rows == 1 && cols == kTileCols) {  // one row (matmul_rows decoding): no work for empty rows
        run_micro_kernel<Kind, 1>(depth, a, b, c, ldc, accumulate);
        return;
    }
    alignas(64) float tile[kTileRows * kTileCols];
    run_micro_kernel<Kind, kTileRows>(depth, a, b, tile, kTileCols, false);
    for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t j = 0; j < cols; ++j) {
            float& out = c[r * ldc + j];
            out = accumulate ? tile[r * kTileCols + j] + out : tile[r * kTileCols + j];
        }
    }
}

std::int64_t packed_a_floats(std::int64_t m, std::int64_t k) {
    return round_up(round_up(std::min(m, kBlockM), kTileRows) * std::min(k, kBlockK), 16);
}

std::int64_t packed_b_floats(std::int64_t n, std::int64_t k) {
    return round_up(std::min(n, kBlockN), kTileCols) * std::min(k, kBlockK);
}

// The GotoBLAS loop nest: panels of B and blocks of A packed once, swept by the micro-kernel.
// With bf16 operands each packed panel is rounded in place (round_panel), so its slivers are
// half as long.
template <Operands Kind, typename T>
void multiply_packed(const MatmulBlock<T>& block, std::span<float> scratch) {
    const auto& [m, n, k, a, b, c] = block;
    float* packed_a = scratch.data();
    float* packed_b = scratch.data() + packed_a_floats(m, k);
    for (std::int64_t jc = 0; jc < n; jc += kBlockN) {
        const std::int64_t nc = std::min(kBlockN, n - jc);
        for (std::int64_t pc = 0; pc < k; pc += kBlockK) {
            const std::int64_t kc = std::min(kBlockK, k - pc);
            const std::int64_t sliver_depth = Kind == Operands::f32 ? kc : step_pairs(kc);
            pack_b(offset(b, pc, jc), kc, nc, packed_b);
            if constexpr (Kind == Operands::bf16) round_panel(packed_b, round_up(nc, kTileCols) / kTileCols, kTileCols, kc);
            for (std::int64_t ic = 0; ic < m; ic += kBlockM) {
                const std::int64_t mc = std::min(kBlockM, m - ic);
                pack_a(offset(a, ic, pc), mc, kc, packed_a);
                if constexpr (Kind == Operands::bf16) round_panel(packed_a, round_up(mc, kTileRows) / kTileRows, kTileRows, kc);
                for (std::int64_t jr = 0; jr < nc; jr += kTileCols) {
                    for (std::int64_t ir = 0; ir < mc; ir += kTileRows) {
                        run_tile<Kind>(kc, packed_a + ir * sliver_depth, packed_b + jr * sliver_depth,
                                       c.data + (ic + ir) * c.row_stride + jc + jr, c.row_stride,
                                       std::min(kTileRows, mc - ir), std::min(kTileCols, nc - jr), pc > 0);
                    }
                }
            }
        }
    }
}

// The one row of A contiguous: itself, or gathered once into scratch so that the inner loops
// of the one-row paths read it in order.
const float* contiguous_row(MatrixView<float> a, std::int64_t k, std::span<float> scratch) {
    if (a.col_stride == 1) return a.data;
    for (std::int64_t p = 0; p < k; ++p) scratch[static_cast<std::size_t>(p)] = a.data[p * a.col_stride];
    return scratch.data();
}

// --- one row of A: matrix-vector, bound by reading B once -----------------------------------

// out[c] = x · column c, for Count columns of B that are contiguous in memory. Each column
// has its own accumulators, so its sum does not depend on which columns share the call.
template <std::int64_t Count, typename T>
void dot_columns(const float* x, std::int64_t k, MatrixView<T> b, float* out) {
    FloatBatch acc[Count][2];
    for (std::int64_t c = 0; c < Count; ++c) acc[c][0] = acc[c][1] = FloatBatch(0.0f);
    std::int64_t p = 0;
    for (; p + 2 * kFloatLanes <= k; p += 2 * kFloatLanes) {
        const FloatBatch x0 = FloatBatch::load_unaligned(x + p);
        const FloatBatch x1 = FloatBatch::load_unaligned(x + p + kFloatLanes);
#pragma GCC unroll 8
        for (std::int64_t c = 0; c < Count; ++c) {
            const T* column = b.data + c * b.col_stride + p;
            acc[c][0] = xsimd::fma(x0, load_widened(column), acc[c][0]);
            acc[c][1] = xsimd::fma(x1, load_widened(column + kFloatLanes), acc[c][1]);
        }
    }
    for (std::int64_t c = 0; c < Count; ++c) {
        float sum = xsimd::hadd(acc[c][0] + acc[c][1]);
        const T* column = b.data + c * b.col_stride;
        for (std::int64_t q = p; q < k; ++q) sum += x[q] * widen(column[q]);
        out[c] = sum;
    }
}

// y = x · B with B's columns contiguous (the weights of a linear layer, W = Bᵀ row-major).
template <typename T>
void vector_times_columns(const float* x, std::int64_t n, std::int64_t k, MatrixView<T> b, float* y) {
    constexpr std::int64_t kGroup = 4;
    std::int64_t j = 0;
    for (; j + kGroup <= n; j += kGroup) dot_columns<kGroup>(x, k, offset(b, 0, j), y + j);
    for (; j < n; ++j) dot_columns<1>(x, k, offset(b, 0, j), y + j);
}

// y += x[p..p+Rows) · rows p..p+Rows of B (row-major), y staying in L1 while the rows stream
// past. Each element of y is one FMA chain in order of p, vector lanes and tail alike.
template <std::int64_t Rows, typename T>
void accumulate_rows(const float* x, std::int64_t n, MatrixView<T> b, float* y) {
    FloatBatch scale[Rows];
    for (std::int64_t r = 0; r < Rows; ++r) scale[r] = FloatBatch(x[r]);
    std::int64_t j = 0;
    for (; j + kFloatLanes <= n; j += kFloatLanes) {
        FloatBatch acc = FloatBatch::load_unaligned(y + j);
#pragma GCC unroll 8
        for (std::int64_t r = 0; r < Rows; ++r) acc = xsimd::fma(scale[r], load_widened(b.data + r * b.row_stride + j), acc);
        acc.store_unaligned(y + j);
    }
    for (; j < n; ++j) {
        for (std::int64_t r = 0; r < Rows; ++r) y[j] = std::fma(x[r], widen(b.data[r * b.row_stride + j]), y[j]);
    }
}

// y = x · B with B's rows contiguous: several rows of B per sweep over y.
template <typename T>
void vector_times_rows(const float* x, std::int64_t n, std::int64_t k, MatrixView<T> b, float* y) {
    constexpr std::int64_t kRows = 4;
    std::fill_n(y, n, 0.0f);
    std::int64_t p = 0;
    for (; p + kRows <= k; p += kRows) accumulate_rows<kRows>(x + p, n, offset(b, p, 0), y);
    for (; p < k; ++p) accumulate_rows<1>(x + p, n, offset(b, p, 0), y);
}

template <typename T>
void multiply_vector(const MatmulBlock<T>& block, std::span<float> scratch) {
    const auto& [m, n, k, a, b, c] = block;
    const float* x = contiguous_row(a, k, scratch);
    if (b.row_stride == 1) {
        vector_times_columns(x, n, k, b, c.data);
    } else if (b.col_stride == 1) {
        vector_times_rows(x, n, k, b, c.data);
    } else {
        for (std::int64_t j = 0; j < n; ++j) {
            float sum = 0.0f;
            for (std::int64_t p = 0; p < k; ++p) sum += x[p] * widen(b.data[p * b.row_stride + j * b.col_stride]);
            c.data[j] = sum;
        }
    }
}

// --- one row of A in the GEMM's order (matmul_rows decoding) ---------------------------------
//
// matmul_rows promises a one-row block the bits of the GEMM: each element of C one FMA chain
// over p from zero per kBlockK-deep panel, the panels added in order. Packing B costs more
// than a one-row product itself, so this path reads W (B's contiguous columns) in place: 16
// weight rows are loaded 16 values at a time and transposed in registers, so that lane j of
// the vector for step p holds column j's value there and each lane runs exactly the GEMM's
// chain. The shuffles of the transpose overlap the FMA chain, which leaves decoding bound by
// reading the weights, as the matrix-vector path is.
#if defined(__AVX512F__)
constexpr std::int64_t kColumnGroup = 16;
// Each of the 16 weight rows is fetched 256 bytes ahead: measured 1.1x (f32) and 1.2x (f16)
// faster than the hardware prefetcher alone, and ahead of 512 or 1024 bytes.
constexpr std::int64_t kPrefetchAhead = 256;

// Steps [p, p + 16) of 16 whole columns, as one vector per step.
template <typename T>
inline void load_steps(const T* first, std::int64_t col_stride, __m512 steps[16]) {
#pragma GCC unroll 16
    for (std::int64_t l = 0; l < 16; ++l) {
        _mm_prefetch(reinterpret_cast<const char*>(first + l * col_stride + kPrefetchAhead / sizeof(T)), _MM_HINT_T0);
        steps[l] = load_widened(first + l * col_stride);
    }
    transpose16(steps);
}

// The same for the edge: `lines` columns (the rest zero) and `count` steps (the rest zero).
template <typename T>
void load_steps_padded(const T* first, std::int64_t col_stride, std::int64_t lines, std::int64_t count,
                       __m512 steps[16]) {
    alignas(64) float padded[16][16] = {};
    for (std::int64_t l = 0; l < lines; ++l) {
        for (std::int64_t q = 0; q < count; ++q) padded[l][q] = widen(first[l * col_stride + q]);
    }
    for (std::int64_t l = 0; l < 16; ++l) steps[l] = _mm512_load_ps(padded[l]);
    transpose16(steps);
}

// c[0, lines) = x · columns [0, lines) of B, lines <= 16, each lane the GEMM's sum.
template <typename T>
void gemm_order_columns(const float* x, std::int64_t k, MatrixView<T> b, std::int64_t lines, float* c) {
    __m512 total = _mm512_setzero_ps();
    for (std::int64_t pc = 0; pc < k; pc += kBlockK) {
        const std::int64_t kc = std::min(kBlockK, k - pc);
        __m512 acc = _mm512_setzero_ps();
        std::int64_t p = 0;
        if (lines == 16) {
            for (; p + 16 <= kc; p += 16) {
                __m512 steps[16];
                load_steps(b.data + pc + p, b.col_stride, steps);
#pragma GCC unroll 16
                for (std::int64_t q = 0; q < 16; ++q) acc = _mm512_fmadd_ps(_mm512_set1_ps(x[pc + p + q]), steps[q], acc);
            }
        }
        for (; p < kc; p += 16) {
            const std::int64_t count = std::min<std::int64_t>(16, kc - p);
            __m512 steps[16];
            load_steps_padded(b.data + pc + p, b.col_stride, lines, count, steps);
            for (std::int64_t q = 0; q < count; ++q) acc = _mm512_fmadd_ps(_mm512_set1_ps(x[pc + p + q]), steps[q], acc);
        }
        total = pc == 0 ? acc : _mm512_add_ps(acc, total);
    }
    _mm512_mask_storeu_ps(c, static_cast<__mmask16>((1u << lines) - 1u), total);
}

template <typename T>
void multiply_one_row(const MatmulBlock<T>& block, std::span<float> scratch) {
    const auto& [m, n, k, a, b, c] = block;
    const float* x = contiguous_row(a, k, scratch);
    for (std::int64_t j = 0; j < n; j += kColumnGroup) {
        gemm_order_columns(x, k, offset(b, 0, j), std::min(kColumnGroup, n - j), c.data + j);
    }
}

// --- a few rows of A in the GEMM's order (verifying a speculative draft, a small batch) ------
//
// Packing B for the GEMM's 12-row tiles costs more than a product of a few rows (and an edge
// tile computes all 12 rows for 2): an f16 pass over 2 rows took 2-3 decode steps. Here each
// group of 16 weight rows (16 columns of C) is transposed one kBlockK-deep panel at a time into
// scratch (16 KiB, stays in L1) by the one-row path's loads, and every row of A runs its FMA
// chain over that panel: the GEMM's sums again (one chain over p from zero per panel, the
// panels added in order), so each row of C is the bits it gets alone, and W is read once
// whatever m is, as in decoding.
constexpr std::int64_t kFewRows = 32;
// Rows per sweep of a panel: their accumulators, the panel's step and a broadcast fit the 32
// registers with room to spare; more rows than this are split into near-equal groups.
constexpr std::int64_t kRowGroup = 12;

// panel[p * 16 + l] = column l of B at step p, for the kc steps of one panel; columns past
// `lines` are zero.
template <typename T>
void transpose_panel(const T* first, std::int64_t col_stride, std::int64_t lines, std::int64_t kc, float* panel) {
    std::int64_t p = 0;
    __m512 steps[16];
    if (lines == 16) {
        for (; p + 16 <= kc; p += 16) {
            load_steps(first + p, col_stride, steps);
#pragma GCC unroll 16
            for (std::int64_t q = 0; q < 16; ++q) _mm512_storeu_ps(panel + (p + q) * 16, steps[q]);
        }
    }
    for (; p < kc; p += 16) {
        const std::int64_t count = std::min<std::int64_t>(16, kc - p);
        load_steps_padded(first + p, col_stride, lines, count, steps);
        for (std::int64_t q = 0; q < count; ++q) _mm512_storeu_ps(panel + (p + q) * 16, steps[q]);
    }
}

// c rows [0, Rows), the `written` columns, = (accumulate ? c : 0) + rows of x (x_stride
// apart, at the panel's first step) · the panel: one FMA chain per row over p from zero, then
// the add, as the GEMM's micro-kernel.
template <std::int64_t Rows>
void rows_times_panel(const float* x, std::int64_t x_stride, const float* panel, std::int64_t kc, float* c,
                      std::int64_t ldc, __mmask16 written, bool accumulate) {
    __m512 acc[Rows];
#pragma GCC unroll 16
    for (std::int64_t r = 0; r < Rows; ++r) acc[r] = _mm512_setzero_ps();
    for (std::int64_t p = 0; p < kc; ++p) {
        const __m512 step = _mm512_loadu_ps(panel + p * 16);
#pragma GCC unroll 16
        for (std::int64_t r = 0; r < Rows; ++r) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(x[r * x_stride + p]), step, acc[r]);
    }
#pragma GCC unroll 16
    for (std::int64_t r = 0; r < Rows; ++r) {
        float* out = c + r * ldc;
        const __m512 sum = accumulate ? _mm512_add_ps(acc[r], _mm512_maskz_loadu_ps(written, out)) : acc[r];
        _mm512_mask_storeu_ps(out, written, sum);
    }
}

template <std::size_t... Rows>
constexpr auto rows_times_panel_table(std::index_sequence<Rows...>) {
    return std::array{&rows_times_panel<static_cast<std::int64_t>(Rows) + 1>...};
}
// rows_times_panel for 1 .. kRowGroup rows, indexed by rows - 1.
constexpr auto kRowsTimesPanel = rows_times_panel_table(std::make_index_sequence<kRowGroup>{});

template <typename T>
void multiply_few_rows(const MatmulBlock<T>& block, std::span<float> scratch) {
    const auto& [m, n, k, a, b, c] = block;
    float* panel = scratch.data();
    const std::int64_t groups = (m + kRowGroup - 1) / kRowGroup, group_rows = (m + groups - 1) / groups;
    for (std::int64_t j = 0; j < n; j += kColumnGroup) {
        const std::int64_t lines = std::min(kColumnGroup, n - j);
        const auto written = static_cast<__mmask16>((1u << lines) - 1u);
        for (std::int64_t pc = 0; pc < k; pc += kBlockK) {
            const std::int64_t kc = std::min(kBlockK, k - pc);
            transpose_panel(b.data + j * b.col_stride + pc, b.col_stride, lines, kc, panel);
            for (std::int64_t i = 0; i < m; i += group_rows) {
                const std::int64_t rows = std::min(group_rows, m - i);
                kRowsTimesPanel[static_cast<std::size_t>(rows - 1)](a.data + i * a.row_stride + pc, a.row_stride, panel, kc,
                                                                    c.data + i * c.row_stride + j, c.row_stride, written,
                                                                    pc > 0);
            }
        }
    }
}
#endif

// An empty C, or an empty sum (C = 0): true when that was the case and C is done.
template <typename T>
bool empty_product(const MatmulBlock<T>& block) {
    if (block.m == 0 || block.n == 0) return true;
    if (block.k != 0) return false;
    for (std::int64_t i = 0; i < block.m; ++i) std::fill_n(block.c.data + i * block.c.row_stride, block.n, 0.0f);
    return true;
}

// Rows independent of m (matmul_rows): never the matrix-vector path.
template <typename T>
void multiply(const MatmulBlock<T>& block, std::span<float> scratch, bool rows_independent) {
    if (empty_product(block)) return;
    if (block.m == 1 && !rows_independent) {
        multiply_vector(block, scratch);
#if defined(__AVX512F__)
    } else if (block.m == 1 && block.b.row_stride == 1) {
        multiply_one_row(block, scratch);
    } else if (block.m <= kFewRows && block.b.row_stride == 1 && block.a.col_stride == 1) {
        multiply_few_rows(block, scratch);
#endif
    } else {
        multiply_packed<Operands::f32>(block, scratch);
    }
}

}  // namespace

std::size_t matmul_scratch_floats(std::int64_t m, std::int64_t n, std::int64_t k) noexcept {
    const std::int64_t packed = packed_a_floats(m, k) + packed_b_floats(n, k);
    return static_cast<std::size_t>(std::max(packed, k));
}

void matmul(const MatmulF32& block, std::span<float> scratch) noexcept { multiply(block, scratch, false); }
void matmul(const MatmulF16& block, std::span<float> scratch) noexcept { multiply(block, scratch, false); }
void matmul_rows(const MatmulF32& block, std::span<float> scratch) noexcept { multiply(block, scratch, true); }
void matmul_rows(const MatmulF16& block, std::span<float> scratch) noexcept { multiply(block, scratch, true); }

void matmul_bf16(const MatmulF32& block, std::span<float> scratch) noexcept {
    if (empty_product(block)) return;
    multiply_packed<Operands::bf16>(block, scratch);
}

const char* matmul_bf16_path() noexcept { return kBf16Path; }

}  // namespace forge::kernels::simd
