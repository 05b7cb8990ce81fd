#include "core/autograd/ops/reduce.h"

#include "core/autograd/ops/shape.h"
#include "core/autograd/variable.h"
#include "core/ops/binary.h"
#include "core/ops/reduce.h"
#include "core/ops/unary.h"

#include <vector>

namespace forge::ag {
namespace {

// The reduced gradient viewed with the axis back in place (size 1), stretched over x's shape.
Tensor expand_back(const Tensor& g, const Shape& x_shape, int axis, bool keepdim) {
    const Tensor kept = keepdim ? g : g.unsqueeze(axis);
    return kept.broadcast_to(x_shape);
}

// Route each reduced gradient to the position its argmax picked; zero elsewhere. The loop
// runs over the outputs only (one write each), so it stays here rather than in a kernel.
Tensor scatter_to_argmax(const Tensor& g, const Tensor& indices, const Shape& x_shape, int axis) {
    Tensor gx = Tensor::zeros(x_shape);
    std::int64_t inner = 1;
    for (int a = axis + 1; a < x_shape.rank(); ++a) inner *= x_shape[a];
    const std::int64_t n = x_shape[axis];
    const Tensor gc = g.contiguous(), ic = indices.contiguous();
    const auto gs = gc.span<float>();
    const auto is = ic.span<std::int64_t>();
    float* out = gx.data<float>();
    for (std::size_t k = 0; k < gs.size(); ++k) {
        const auto o = static_cast<std::int64_t>(k) / inner, i = static_cast<std::int64_t>(k) % inner;
        out[(o * n + is[k]) * inner + i] += gs[k];
    }
    return gx;
}

}  // namespace

Tensor sum(const Tensor& x, int axis, bool keepdim) {
    Tensor y = forge::sum(x, axis, keepdim);
    if (!any_requires_grad({&x})) return y;
    const int a = normalize_axis(axis, x.rank());
    return record("sum", y, {&x}, [shape = x.shape(), a, keepdim](const Tensor& g, InputMask) {
        return std::vector<Tensor>{expand_back(g, shape, a, keepdim)};
    });
}

Tensor mean(const Tensor& x, int axis, bool keepdim) {
    Tensor y = forge::mean(x, axis, keepdim);
    if (!any_requires_grad({&x})) return y;
    const int a = normalize_axis(axis, x.rank());
    return record("mean", y, {&x}, [shape = x.shape(), a, keepdim](const Tensor& g, InputMask) {
        const float inverse_n = 1.0f / static_cast<float>(shape[a]);
        return std::vector<Tensor>{expand_back(forge::operator*(g, inverse_n), shape, a, keepdim)};
    });
}

Tensor max(const Tensor& x, int axis, bool keepdim) {
    Tensor y = forge::max(x, axis, keepdim);
    if (!any_requires_grad({&x})) return y;
    const int a = normalize_axis(axis, x.rank());
    return record("max", y, {&x}, [x = detach(x), a](const Tensor& g, InputMask) {
        return std::vector<Tensor>{scatter_to_argmax(g, forge::argmax(x, a), x.shape(), a)};
    });
}

Tensor logsumexp(const Tensor& x, int axis, bool keepdim) {
    Tensor y = forge::logsumexp(x, axis, keepdim);
    if (!any_requires_grad({&x})) return y;
    const int a = normalize_axis(axis, x.rank());
    return record("logsumexp", y, {&x}, [x = detach(x), y = detach(y), a, keepdim](const Tensor& g, InputMask) {
        // d lse / dx = softmax(x) = exp(x - lse)
        const Tensor p = forge::exp(forge::sub(x, expand_back(y, x.shape(), a, keepdim)));
        return std::vector<Tensor>{forge::mul(p, expand_back(g, x.shape(), a, keepdim))};
    });
}

Tensor sum_all(const Tensor& x) { return ag::reshape(ag::sum(ag::reshape(x, Shape{x.numel()}), 0), Shape{}); }

Tensor mean_all(const Tensor& x) { return ag::reshape(ag::mean(ag::reshape(x, Shape{x.numel()}), 0), Shape{}); }

}  // namespace forge::ag
