#include "kernels/reduce.h"

#include <cmath>
#include <limits>

namespace forge::kernels::scalar {
namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();

// One column of the [outer, n, inner] view: the n values reduced into one output.
struct Column {
    const float* first;
    std::int64_t n;
    std::int64_t step;
    float operator[](std::int64_t k) const { return first[k * step]; }
};

float sum(Column c) {
    float total = 0.0f;
    for (std::int64_t k = 0; k < c.n; ++k) total += c[k];
    return total;
}

float max(Column c) {
    float best = -kInfinity;
    for (std::int64_t k = 0; k < c.n; ++k) {
        if (std::isnan(c[k])) return c[k];
        if (c[k] > best) best = c[k];
    }
    return best;
}

// log(sum(exp(x))) = m + log(sum(exp(x - m))) with m = max(x), so no exp overflows. When m
// is infinite, x - m would be NaN; the answer is m itself.
float logsumexp(Column c) {
    const float m = max(c);
    if (std::isinf(m) || std::isnan(m)) return m;
    float total = 0.0f;
    for (std::int64_t k = 0; k < c.n; ++k) total += std::exp(c[k] - m);
    return m + std::log(total);
}

std::int64_t argmax(Column c) {
    std::int64_t best = 0;
    for (std::int64_t k = 0; k < c.n; ++k) {
        if (std::isnan(c[k])) return k;
        if (c[k] > c[best]) best = k;  // strictly greater: the lowest index wins ties
    }
    return best;
}

float reduce_column(ReduceOp op, Column c) {
    switch (op) {
        case ReduceOp::Sum: return sum(c);
        case ReduceOp::Mean: return sum(c) / static_cast<float>(c.n);
        case ReduceOp::Max: return max(c);
        case ReduceOp::LogSumExp: return logsumexp(c);
    }
    return 0.0f;
}

Column column(const float* x, const ReduceLayout& layout, std::int64_t o, std::int64_t i) {
    return {x + o * layout.n * layout.stride + i, layout.n, layout.stride};
}

}  // namespace

void reduce(ReduceOp op, const float* x, const ReduceLayout& layout, float* y) noexcept {
    for (std::int64_t o = 0; o < layout.outer; ++o) {
        for (std::int64_t i = 0; i < layout.inner; ++i) {
            y[o * layout.stride + i] = reduce_column(op, column(x, layout, o, i));
        }
    }
}

void argmax(const float* x, const ReduceLayout& layout, std::int64_t* y) noexcept {
    for (std::int64_t o = 0; o < layout.outer; ++o) {
        for (std::int64_t i = 0; i < layout.inner; ++i) {
            y[o * layout.stride + i] = argmax(column(x, layout, o, i));
        }
    }
}

}  // namespace forge::kernels::scalar
