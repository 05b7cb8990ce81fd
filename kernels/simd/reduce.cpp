#include "kernels/reduce.h"

#include "kernels/simd/vector_math.h"

#include <cmath>
#include <limits>

namespace forge::kernels::simd {
namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// --- Rows: the last axis (inner == 1). Vectorize along the row itself; several independent
// accumulators hide the add latency. The combination order depends only on n.

float row_sum(const float* x, std::int64_t n) {
    Batch acc[4] = {Batch(0.0f), Batch(0.0f), Batch(0.0f), Batch(0.0f)};
    std::int64_t k = 0;
    constexpr auto lanes = static_cast<std::int64_t>(kLanes);
    for (; k + 4 * lanes <= n; k += 4 * lanes) {
        for (int j = 0; j < 4; ++j) acc[j] += Batch::load_unaligned(x + k + j * lanes);
    }
    for (; k + lanes <= n; k += lanes) acc[0] += Batch::load_unaligned(x + k);
    if (k < n) acc[1] += load_tail(x + k, static_cast<std::size_t>(n - k), 0.0f);
    return sum_lanes((acc[0] + acc[1]) + (acc[2] + acc[3]));
}

float row_max(const float* x, std::int64_t n) {
    Batch acc[2] = {Batch(-kInfinity), Batch(-kInfinity)};
    auto nan_seen = Batch(0.0f) != Batch(0.0f);
    std::int64_t k = 0;
    constexpr auto lanes = static_cast<std::int64_t>(kLanes);
    for (; k + 2 * lanes <= n; k += 2 * lanes) {
        for (int j = 0; j < 2; ++j) {
            const Batch v = Batch::load_unaligned(x + k + j * lanes);
            nan_seen = nan_seen || xsimd::isnan(v);
            acc[j] = xsimd::max(acc[j], v);
        }
    }
    for (; k < n; k += lanes) {
        const auto count = static_cast<std::size_t>(std::min(lanes, n - k));
        const Batch v = count == kLanes ? Batch::load_unaligned(x + k) : load_tail(x + k, count, -kInfinity);
        nan_seen = nan_seen || xsimd::isnan(v);
        acc[0] = xsimd::max(acc[0], v);
    }
    // The hardware max drops NaNs, so they are tracked on the side.
    return xsimd::any(nan_seen) ? kNaN : max_lanes(xsimd::max(acc[0], acc[1]));
}

float row_logsumexp(const float* x, std::int64_t n) {
    const float m = row_max(x, n);
    if (std::isinf(m) || std::isnan(m)) return m;
    const Batch shift(m);
    Batch acc[2] = {Batch(0.0f), Batch(0.0f)};
    std::int64_t k = 0;
    constexpr auto lanes = static_cast<std::int64_t>(kLanes);
    for (; k + 2 * lanes <= n; k += 2 * lanes) {
        for (int j = 0; j < 2; ++j) acc[j] += xsimd::exp(Batch::load_unaligned(x + k + j * lanes) - shift);
    }
    for (; k + lanes <= n; k += lanes) acc[0] += xsimd::exp(Batch::load_unaligned(x + k) - shift);
    // Padding with -inf makes the unused lanes add exp(-inf) = 0.
    if (k < n) acc[1] += xsimd::exp(load_tail(x + k, static_cast<std::size_t>(n - k), -kInfinity) - shift);
    return m + std::log(sum_lanes(acc[0] + acc[1]));
}

// --- Columns: any other axis (inner > 1). Neighbouring outputs are neighbours in memory, so
// vectorize across them: one batch holds kLanes columns, and each column is reduced in plain
// k order, exactly like the scalar kernel.

struct ColumnBlock {
    const float* first;  // element k = 0 of the first column
    std::int64_t n;
    std::int64_t step;   // distance between k and k + 1
    std::size_t count;   // columns in this block, <= kLanes

    Batch load(std::int64_t k, float pad) const {
        const float* at = first + k * step;
        return count == kLanes ? Batch::load_unaligned(at) : load_tail(at, count, pad);
    }
};

Batch column_sum(const ColumnBlock& c) {
    Batch acc(0.0f);
    for (std::int64_t k = 0; k < c.n; ++k) acc += c.load(k, 0.0f);
    return acc;
}

Batch column_max(const ColumnBlock& c) {
    Batch acc(-kInfinity);
    auto nan_seen = acc != acc;
    for (std::int64_t k = 0; k < c.n; ++k) {
        const Batch v = c.load(k, 0.0f);
        nan_seen = nan_seen || xsimd::isnan(v);
        acc = xsimd::max(acc, v);
    }
    return xsimd::select(nan_seen, Batch(kNaN), acc);
}

Batch column_logsumexp(const ColumnBlock& c) {
    const Batch m = column_max(c);
    Batch total(0.0f);
    for (std::int64_t k = 0; k < c.n; ++k) total += xsimd::exp(c.load(k, 0.0f) - m);
    // Where the max is infinite or NaN, x - m is NaN and the answer is m itself.
    return xsimd::select(xsimd::isinf(m) || xsimd::isnan(m), m, m + xsimd::log(total));
}

Batch reduce_columns(ReduceOp op, const ColumnBlock& c) {
    switch (op) {
        case ReduceOp::Sum: return column_sum(c);
        case ReduceOp::Mean: return column_sum(c) / Batch(static_cast<float>(c.n));
        case ReduceOp::Max: return column_max(c);
        case ReduceOp::LogSumExp: return column_logsumexp(c);
    }
    return Batch(0.0f);
}

float reduce_row(ReduceOp op, const float* x, std::int64_t n) {
    switch (op) {
        case ReduceOp::Sum: return row_sum(x, n);
        case ReduceOp::Mean: return row_sum(x, n) / static_cast<float>(n);
        case ReduceOp::Max: return row_max(x, n);
        case ReduceOp::LogSumExp: return row_logsumexp(x, n);
    }
    return 0.0f;
}

// Calls f(block, output offset) for every block of up to kLanes columns.
template <typename F>
void for_each_column_block(const ReduceLayout& layout, const float* x, F f) {
    for (std::int64_t o = 0; o < layout.outer; ++o) {
        for (std::int64_t i = 0; i < layout.inner; i += static_cast<std::int64_t>(kLanes)) {
            const auto count = static_cast<std::size_t>(std::min<std::int64_t>(kLanes, layout.inner - i));
            f(ColumnBlock{x + o * layout.n * layout.stride + i, layout.n, layout.stride, count},
              o * layout.stride + i);
        }
    }
}

bool is_rows(const ReduceLayout& layout) { return layout.inner == 1 && layout.stride == 1; }

// --- argmax. Each lane keeps its best value and the index where it was found; a lane sees
// increasing indices and replaces its best only when strictly greater (or on a first NaN),
// so it holds the lowest index of its maximum.

auto improves(Batch v, Batch best) { return v > best || (xsimd::isnan(v) && !xsimd::isnan(best)); }

// Lane a beats lane b if it holds the first NaN, else a larger value, else the same value
// at a lower index.
bool lane_beats(float value_a, std::int32_t index_a, float value_b, std::int32_t index_b) {
    if (std::isnan(value_a) != std::isnan(value_b)) return std::isnan(value_a);
    if (std::isnan(value_a) || value_a == value_b) return index_a < index_b;
    return value_a > value_b;
}

std::int64_t row_argmax(const float* x, std::int64_t n) {
    constexpr auto lanes = static_cast<std::int64_t>(kLanes);
    alignas(64) std::int32_t iota[kLanes];
    for (std::size_t lane = 0; lane < kLanes; ++lane) iota[lane] = static_cast<std::int32_t>(lane);
    // Padding lanes hold -inf at indices >= n, so they never beat a real element.
    const auto first = static_cast<std::size_t>(std::min(lanes, n));
    Batch best = first == kLanes ? Batch::load_unaligned(x) : load_tail(x, first, -kInfinity);
    IntBatch best_index = IntBatch::load_aligned(iota);
    IntBatch index = best_index;
    for (std::int64_t k = lanes; k < n; k += lanes) {
        index += IntBatch(static_cast<std::int32_t>(lanes));
        const auto count = static_cast<std::size_t>(std::min(lanes, n - k));
        const Batch v = count == kLanes ? Batch::load_unaligned(x + k) : load_tail(x + k, count, -kInfinity);
        const auto take = improves(v, best);
        best = xsimd::select(take, v, best);
        best_index = xsimd::select(xsimd::bool_cast(take), index, best_index);
    }
    alignas(64) float values[kLanes];
    alignas(64) std::int32_t indices[kLanes];
    best.store_aligned(values);
    best_index.store_aligned(indices);
    std::size_t winner = 0;
    for (std::size_t lane = 1; lane < kLanes; ++lane) {
        if (lane_beats(values[lane], indices[lane], values[winner], indices[winner])) winner = lane;
    }
    return indices[winner];
}

void column_argmax(const ColumnBlock& c, std::int64_t* y) {
    Batch best = c.load(0, 0.0f);
    IntBatch best_index(0);
    for (std::int64_t k = 1; k < c.n; ++k) {
        const Batch v = c.load(k, 0.0f);
        const auto take = improves(v, best);
        best = xsimd::select(take, v, best);
        best_index = xsimd::select(xsimd::bool_cast(take), IntBatch(static_cast<std::int32_t>(k)), best_index);
    }
    alignas(64) std::int32_t indices[kLanes];
    best_index.store_aligned(indices);
    for (std::size_t lane = 0; lane < c.count; ++lane) y[lane] = indices[lane];
}

}  // namespace

void reduce(ReduceOp op, const float* x, const ReduceLayout& layout, float* y) noexcept {
    if (is_rows(layout)) {
        for (std::int64_t o = 0; o < layout.outer; ++o) y[o] = reduce_row(op, x + o * layout.n, layout.n);
        return;
    }
    for_each_column_block(layout, x, [&](const ColumnBlock& block, std::int64_t out) {
        store_tail(reduce_columns(op, block), y + out, block.count);
    });
}

void argmax(const float* x, const ReduceLayout& layout, std::int64_t* y) noexcept {
    // Lane indices are int32; an axis that long (never produced by the front-end, which
    // chunks long axes) takes the scalar kernel.
    if (layout.n <= 0 || layout.n >= std::numeric_limits<std::int32_t>::max() - static_cast<std::int64_t>(kLanes)) {
        scalar::argmax(x, layout, y);
        return;
    }
    if (is_rows(layout)) {
        for (std::int64_t o = 0; o < layout.outer; ++o) y[o] = row_argmax(x + o * layout.n, layout.n);
        return;
    }
    for_each_column_block(layout, x, [&](const ColumnBlock& block, std::int64_t out) {
        column_argmax(block, y + out);
    });
}

}  // namespace forge::kernels::simd
