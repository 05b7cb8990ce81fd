#include "core/named/contract.h"

#include "core/autograd/ops/matmul.h"
#include "core/autograd/ops/shape.h"

#include <vector>

namespace forge::named::detail {
namespace {

// The axes of t in `order`, as a list of sizes.
Shape sizes_without(const Tensor& t, int axis) {
    Shape shape;
    for (int a = 0; a < t.rank(); ++a) {
        if (a != axis) shape.push_back(t.size(a));
    }
    return shape;
}

// t with `axis` moved to position `to` (0 or last), the others kept in order.
Tensor move_axis(const Tensor& t, int axis, bool to_front) {
    std::vector<int> order;
    if (to_front) order.push_back(axis);
    for (int a = 0; a < t.rank(); ++a) {
        if (a != axis) order.push_back(a);
    }
    if (!to_front) order.push_back(axis);
    return ag::permute(t, order);
}

}  // namespace

Tensor contract(const Tensor& x, int x_axis, const Tensor& w, int w_axis) {
    // The common case, two matrices: one matmul with transpose flags, no copies.
    if (x.rank() == 2 && w.rank() == 2) return ag::matmul(x, w, x_axis == 0, w_axis == 1);
    // Otherwise: x as [rest, K], w as [K, rest], one matmul, then the rest axes unflattened.
    const std::int64_t k = x.size(x_axis);
    const Shape x_rest = sizes_without(x, x_axis), w_rest = sizes_without(w, w_axis);
    const Tensor x2 = ag::reshape(move_axis(x, x_axis, false), Shape{x_rest.product(), k});
    const Tensor w2 = ag::reshape(move_axis(w, w_axis, true), Shape{k, w_rest.product()});
    Shape result = x_rest;
    for (std::int64_t size : w_rest) result.push_back(size);
    return ag::reshape(ag::matmul(x2, w2), result);
}

}  // namespace forge::named::detail
