// How a float matrix product C [m, n] = A [m, k] · B [k, n] is cut into tasks for the thread
// pool: shared by the tensor op (core/ops/matmul.cpp) and the inference front-end
// (core/infer/linear.cpp), so both split the same work the same way.
//
// Tiles are multiples of every backend's micro-tile (12 or 6 rows, 32 or 16 columns) so that
// only the matrix edge has partial tiles. A 192 x 256 tile is ~0.2 GFLOP per 1024 of depth:
// big enough to amortize packing, small enough for 2..64 threads to share an LLM-sized
// product evenly. A matrix-vector product (one row, the kernel's streaming path) takes column
// strips of ~2^19 weights (2 MiB of f32) in whole groups of 64 columns. A few rows (up to 32:
// a decode step's, a draft's) through the GEMM tiles take column strips of ~2^16 weights in
// whole groups of 32 columns: such a product reads its weights once, and a narrow one, as a
// MoE router's 128 columns, was a single task that one thread ran while the others waited
// (0.4-0.6 ms of a 10-20 ms decode step on 2 threads). The partition depends
// on the shape only, never on the thread count, and k is never split, so results are bitwise
// identical for any number of threads.
#pragma once

#include <algorithm>
#include <cstdint>

namespace forge {

struct MatmulTiling {
    std::int64_t rows, cols;  // of one task's tile of C

    std::int64_t row_tiles(std::int64_t m) const { return (m + rows - 1) / rows; }
    std::int64_t col_tiles(std::int64_t n) const { return (n + cols - 1) / cols; }
};

// The tiles for a product with m rows and depth k; `streaming` when a one-row product runs the
// kernel's matrix-vector path (matmul), not its GEMM tiles (matmul_rows).
inline MatmulTiling matmul_tiling(std::int64_t m, std::int64_t k, bool streaming = true) {
    constexpr std::int64_t kTaskRows = 192, kTaskCols = 256, kVectorTaskWeights = std::int64_t{1} << 19;
    constexpr std::int64_t kFewRows = 32, kFewRowsTaskWeights = std::int64_t{1} << 16;
    // Columns for tasks of about `weights` weights each, in whole groups of `group` columns.
    const auto strip = [k](std::int64_t weights, std::int64_t group) {
        const std::int64_t depth = std::max<std::int64_t>(k, 1);
        return std::max(group, (weights + depth - 1) / depth / group * group);
    };
    if (m == 1 && streaming) return {1, strip(kVectorTaskWeights, 64)};
    if (m <= kFewRows && !streaming) return {kFewRows, std::min(kTaskCols, strip(kFewRowsTaskWeights, 32))};
    return {kTaskRows, kTaskCols};
}

}  // namespace forge
