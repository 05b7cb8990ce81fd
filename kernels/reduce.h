// Reductions along one axis of a tensor viewed as [outer, n, inner].
//
// Viewing every reduction as [outer, n, inner] covers both shapes that matter: the last axis
// (inner = 1: each output reduces one contiguous row) and any other axis (inner > 1: each
// output reduces a column, and neighbouring outputs are neighbours in memory, so the simd
// kernel vectorizes across them).
//
// Element (o, k, i) of x is x[(o * n + k) * stride + i] and output (o, i) is y[o * stride + i].
// `stride` is the full inner extent of the tensor; a front-end that hands a kernel only a
// block of the inner axis passes the block width as `inner` and the full extent as `stride`.
#pragma once

#include <cstdint>

namespace forge::kernels {

enum class ReduceOp {
    Sum,
    Mean,
    Max,        // NaN if any element is NaN
    LogSumExp,  // log(sum(exp(x))), computed stably; -inf for an empty or all -inf axis
};

struct ReduceLayout {
    std::int64_t outer = 1;
    std::int64_t n = 0;
    std::int64_t inner = 1;
    std::int64_t stride = 1;  // >= inner
};

namespace scalar {
void reduce(ReduceOp op, const float* x, const ReduceLayout& layout, float* y) noexcept;
// Index along the axis of the largest element; the lowest index wins ties; NaN counts as
// larger than any number (the first NaN wins). An empty axis gives 0.
void argmax(const float* x, const ReduceLayout& layout, std::int64_t* y) noexcept;
}  // namespace scalar

namespace simd {
void reduce(ReduceOp op, const float* x, const ReduceLayout& layout, float* y) noexcept;
void argmax(const float* x, const ReduceLayout& layout, std::int64_t* y) noexcept;
}  // namespace simd

}  // namespace forge::kernels
