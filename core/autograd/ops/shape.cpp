#include "core/autograd/ops/shape.h"

#include "core/autograd/broadcast_grad.h"
#include "core/autograd/variable.h"
#include "core/ops/concat.h"

#include <numeric>

namespace forge::ag {
namespace {

// g placed inside zeros along `axis`: `before` zero slices, then g, then `after` (the
// gradient of narrow, whose untouched elements get nothing).
Tensor pad_along(const Tensor& g, int axis, std::int64_t before, std::int64_t after) {
    if (before == 0 && after == 0) return g;
    std::vector<Tensor> parts;
    auto zeros = [&](std::int64_t length) {
        Shape shape = g.shape();
        shape[axis] = length;
        return Tensor::zeros(shape);
    };
    if (before > 0) parts.push_back(zeros(before));
    parts.push_back(g);
    if (after > 0) parts.push_back(zeros(after));
    return forge::concat(parts, axis);
}

Tensor single(std::string_view name, Tensor y, const Tensor& x, std::function<Tensor(const Tensor&)> backward) {
    if (!any_requires_grad({&x})) return detach(y);
    return record(name, std::move(y), {&x}, [backward = std::move(backward)](const Tensor& g, InputMask) {
        return std::vector<Tensor>{backward(g)};
    });
}

}  // namespace

Tensor reshape(const Tensor& x, const Shape& shape) {
    return single("reshape", x.reshape(shape), x, [from = x.shape()](const Tensor& g) { return g.reshape(from); });
}

Tensor transpose(const Tensor& x, int axis_a, int axis_b) {
    return single("transpose", x.transpose(axis_a, axis_b), x,
                  [axis_a, axis_b](const Tensor& g) { return g.transpose(axis_a, axis_b); });
}

Tensor permute(const Tensor& x, std::span<const int> order) {
    std::vector<int> inverse(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        inverse[static_cast<std::size_t>(normalize_axis(order[i], x.rank()))] = static_cast<int>(i);
    }
    return single("permute", x.permute(order), x, [inverse](const Tensor& g) { return g.permute(inverse); });
}

Tensor narrow(const Tensor& x, int axis, std::int64_t start, std::int64_t length) {
    const int a = normalize_axis(axis, x.rank());
    const std::int64_t after = x.size(a) - start - length;
    return single("narrow", x.narrow(a, start, length), x,
                  [a, start, after](const Tensor& g) { return pad_along(g, a, start, after); });
}

Tensor select(const Tensor& x, int axis, std::int64_t index) {
    const int a = normalize_axis(axis, x.rank());
    const std::int64_t after = x.size(a) - index - 1;
    return single("select", x.select(a, index), x,
                  [a, index, after](const Tensor& g) { return pad_along(g.unsqueeze(a), a, index, after); });
}

Tensor unsqueeze(const Tensor& x, int axis) {
    return single("unsqueeze", x.unsqueeze(axis), x, [from = x.shape()](const Tensor& g) { return g.reshape(from); });
}

Tensor squeeze(const Tensor& x, int axis) {
    return single("squeeze", x.squeeze(axis), x, [from = x.shape()](const Tensor& g) { return g.reshape(from); });
}

Tensor broadcast_to(const Tensor& x, const Shape& shape) {
    return single("broadcast_to", x.broadcast_to(shape), x,
                  [from = x.shape()](const Tensor& g) { return sum_to_shape(g, from); });
}

Tensor contiguous(const Tensor& x) {
    return single("contiguous", x.contiguous(), x, [](const Tensor& g) { return g; });
}

Tensor concat(std::span<const Tensor> tensors, int axis) {
    Tensor y = forge::concat(tensors, axis);
    bool needed = false;
    for (const Tensor& t : tensors) needed = needed || any_requires_grad({&t});
    if (!needed) return y;
    const int a = normalize_axis(axis, tensors.front().rank());
    std::vector<std::int64_t> sizes;
    for (const Tensor& t : tensors) sizes.push_back(t.size(a));
    return record("concat", y, tensors, [sizes, a](const Tensor& g, InputMask) {
        return forge::split(g, sizes, a);
    });
}

std::vector<Tensor> split(const Tensor& x, std::span<const std::int64_t> sizes, int axis) {
    const int a = normalize_axis(axis, x.rank());
    const std::int64_t total = std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0});
    check(total == x.size(a), "split: sizes add up to {}, axis {} has {}", total, a, x.size(a));
    std::vector<Tensor> pieces;
    std::int64_t start = 0;
    for (std::int64_t size : sizes) {
        pieces.push_back(narrow(x, a, start, size));
        start += size;
    }
    return pieces;
}

}  // namespace forge::ag
