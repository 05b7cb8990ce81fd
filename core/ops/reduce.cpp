#include "core/ops/reduce.h"

#include "core/ops/check_f32.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"

#include <cmath>
#include <limits>
#include <vector>

namespace forge {
namespace {

using kernels::ReduceLayout;
using kernels::ReduceOp;

// A reduced axis longer than this is cut into chunks of this length whose partial results are
// combined in chunk order: the chunks depend on the axis length only, so a long reduction is
// both parallel and bitwise identical for any thread count.
constexpr std::int64_t kAxisChunk = 1 << 15;
// Columns per parallel task when reducing a middle axis, and elements per task overall.
constexpr std::int64_t kColumnBlock = 1024;
constexpr std::int64_t kElementGrain = 1 << 16;

// The tensor seen as [outer, n, inner] around the reduced axis.
struct Split {
    std::int64_t outer = 1, n = 1, inner = 1;
    Shape out_shape;
};

Split split_at(const Tensor& x, int axis, bool keepdim) {
    Split s;
    for (int d = 0; d < x.rank(); ++d) {
        if (d < axis) s.outer *= x.size(d);
        if (d > axis) s.inner *= x.size(d);
        if (d != axis) s.out_shape.push_back(x.size(d));
        else if (keepdim) s.out_shape.push_back(1);
    }
    s.n = x.size(axis);
    return s;
}

// Validates and prepares one reduction; returns the contiguous input.
Tensor prepare(const Tensor& x, int& axis, std::string_view op, bool needs_elements) {
    check_f32(x, op);
    check(x.rank() >= 1, "{}: cannot reduce a rank-0 tensor along axis {}", op, axis);
    check(axis >= -x.rank() && axis < x.rank(), "{}: axis {} is out of range for shape {}", op, axis,
          x.shape().to_string());
    axis = normalize_axis(axis, x.rank());
    check(!needs_elements || x.size(axis) > 0, "{}: axis {} of shape {} is empty", op, axis, x.shape().to_string());
    return x.contiguous();
}

// Runs body(o, i0, width) over every block of up to kColumnBlock columns of every slice, in
// parallel. Rows (inner == 1) are handed out many at a time instead, as (o0, 0, count).
template <typename Body>
void for_each_block(const Split& s, Body body) {
    if (s.inner == 1) {
        const std::int64_t grain = std::max<std::int64_t>(1, kElementGrain / std::max<std::int64_t>(s.n, 1));
        ThreadPool::global().parallel_for(s.outer, grain, [&](std::int64_t begin, std::int64_t end) {
            body(begin, 0, end - begin);
        });
        return;
    }
    const std::int64_t blocks = (s.inner + kColumnBlock - 1) / kColumnBlock;
    const std::int64_t task_elements = std::max<std::int64_t>(1, s.n * std::min(kColumnBlock, s.inner));
    const std::int64_t grain = std::max<std::int64_t>(1, kElementGrain / task_elements);
    ThreadPool::global().parallel_for(s.outer * blocks, grain, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t task = begin; task < end; ++task) {
            const std::int64_t i0 = (task % blocks) * kColumnBlock;
            body(task / blocks, i0, std::min(kColumnBlock, s.inner - i0));
        }
    });
}

// --- a short axis: one kernel call per block.

void reduce_short(ReduceOp op, const float* x, const Split& s, float* y) {
    for_each_block(s, [&](std::int64_t o, std::int64_t i0, std::int64_t width) {
        const float* first = x + o * s.n * s.inner + i0;
        if (s.inner == 1) kernels::active::reduce(op, first, ReduceLayout{width, s.n, 1, 1}, y + o);
        else kernels::active::reduce(op, first, ReduceLayout{1, s.n, width, s.inner}, y + o * s.inner + i0);
    });
}

void argmax_short(const float* x, const Split& s, std::int64_t* y) {
    for_each_block(s, [&](std::int64_t o, std::int64_t i0, std::int64_t width) {
        const float* first = x + o * s.n * s.inner + i0;
        if (s.inner == 1) kernels::active::argmax(first, ReduceLayout{width, s.n, 1, 1}, y + o);
        else kernels::active::argmax(first, ReduceLayout{1, s.n, width, s.inner}, y + o * s.inner + i0);
    });
}

// --- a long axis: chunk results [outer, chunks, inner], then a combination in chunk order.

struct Chunks {
    std::int64_t count;
    std::int64_t length(std::int64_t c, std::int64_t n) const { return std::min(kAxisChunk, n - c * kAxisChunk); }
};

// Calls body(o, c, chunk input, chunk layout, partial offset) for every chunk, in parallel.
template <typename Body>
void for_each_chunk(const float* x, const Split& s, Chunks chunks, Body body) {
    ThreadPool::global().parallel_for(s.outer * chunks.count, 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t task = begin; task < end; ++task) {
            const std::int64_t o = task / chunks.count, c = task % chunks.count;
            const float* first = x + (o * s.n + c * kAxisChunk) * s.inner;
            body(first, ReduceLayout{1, chunks.length(c, s.n), s.inner, s.inner}, task * s.inner);
        }
    });
}

float combine(ReduceOp op, const float* partials, std::int64_t count, std::int64_t step, std::int64_t n) {
    constexpr float kInfinity = std::numeric_limits<float>::infinity();
    switch (op) {
        case ReduceOp::Sum:
        case ReduceOp::Mean: {
            float total = 0.0f;
            for (std::int64_t c = 0; c < count; ++c) total += partials[c * step];
            return op == ReduceOp::Mean ? total / static_cast<float>(n) : total;
        }
        case ReduceOp::Max: {
            float best = -kInfinity;
            for (std::int64_t c = 0; c < count; ++c) {
                if (std::isnan(partials[c * step])) return partials[c * step];
                best = std::max(best, partials[c * step]);
            }
            return best;
        }
        case ReduceOp::LogSumExp: {
            // log(sum(exp)) of the chunks' log-sum-exps, shifted by their max like the kernel.
            const float m = combine(ReduceOp::Max, partials, count, step, n);
            if (std::isinf(m) || std::isnan(m)) return m;
            float total = 0.0f;
            for (std::int64_t c = 0; c < count; ++c) total += std::exp(partials[c * step] - m);
            return m + std::log(total);
        }
    }
    return 0.0f;
}

void reduce_long(ReduceOp op, const float* x, const Split& s, float* y) {
    const Chunks chunks{(s.n + kAxisChunk - 1) / kAxisChunk};
    // A mean is the combined sum divided once by n.
    const ReduceOp chunk_op = op == ReduceOp::Mean ? ReduceOp::Sum : op;
    std::vector<float> partials(static_cast<std::size_t>(s.outer * chunks.count * s.inner));
    for_each_chunk(x, s, chunks, [&](const float* first, const ReduceLayout& layout, std::int64_t at) {
        kernels::active::reduce(chunk_op, first, layout, partials.data() + at);
    });
    for (std::int64_t o = 0; o < s.outer; ++o) {
        for (std::int64_t i = 0; i < s.inner; ++i) {
            y[o * s.inner + i] = combine(op, partials.data() + o * chunks.count * s.inner + i, chunks.count, s.inner, s.n);
        }
    }
}

void argmax_long(const float* x, const Split& s, std::int64_t* y) {
    const Chunks chunks{(s.n + kAxisChunk - 1) / kAxisChunk};
    std::vector<std::int64_t> partials(static_cast<std::size_t>(s.outer * chunks.count * s.inner));
    for_each_chunk(x, s, chunks, [&](const float* first, const ReduceLayout& layout, std::int64_t at) {
        kernels::active::argmax(first, layout, partials.data() + at);
    });
    // Chunk winners in order: a later chunk takes over only if strictly greater (or the first
    // NaN), so the lowest index still wins ties.
    for (std::int64_t o = 0; o < s.outer; ++o) {
        for (std::int64_t i = 0; i < s.inner; ++i) {
            auto value = [&](std::int64_t k) { return x[(o * s.n + k) * s.inner + i]; };
            std::int64_t best = 0;
            for (std::int64_t c = 0; c < chunks.count; ++c) {
                const std::int64_t k = c * kAxisChunk + partials[static_cast<std::size_t>((o * chunks.count + c) * s.inner + i)];
                if (std::isnan(value(best))) break;
                if (value(k) > value(best) || std::isnan(value(k))) best = k;
            }
            y[o * s.inner + i] = best;
        }
    }
}

Tensor reduce(ReduceOp op, std::string_view name, const Tensor& x, int axis, bool keepdim) {
    const Tensor in = prepare(x, axis, name, op == ReduceOp::Max);
    const Split s = split_at(in, axis, keepdim);
    Tensor out = Tensor::empty(s.out_shape);
    if (out.numel() == 0) return out;
    if (s.n > kAxisChunk) reduce_long(op, in.data<float>(), s, out.data<float>());
    else reduce_short(op, in.data<float>(), s, out.data<float>());
    return out;
}

}  // namespace

Tensor sum(const Tensor& x, int axis, bool keepdim) { return reduce(ReduceOp::Sum, "sum", x, axis, keepdim); }
Tensor mean(const Tensor& x, int axis, bool keepdim) { return reduce(ReduceOp::Mean, "mean", x, axis, keepdim); }
Tensor max(const Tensor& x, int axis, bool keepdim) { return reduce(ReduceOp::Max, "max", x, axis, keepdim); }
Tensor logsumexp(const Tensor& x, int axis, bool keepdim) {
    return reduce(ReduceOp::LogSumExp, "logsumexp", x, axis, keepdim);
}

Tensor argmax(const Tensor& x, int axis, bool keepdim) {
    const Tensor in = prepare(x, axis, "argmax", true);
    const Split s = split_at(in, axis, keepdim);
    Tensor out = Tensor::empty(s.out_shape, DType::I64);
    if (out.numel() == 0) return out;
    if (s.n > kAxisChunk) argmax_long(in.data<float>(), s, out.data<std::int64_t>());
    else argmax_short(in.data<float>(), s, out.data<std::int64_t>());
    return out;
}

}  // namespace forge
