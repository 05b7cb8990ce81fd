// Differentiable views and re-arrangements: the gradient of a view is the output gradient
// put back where the view took it from.
#pragma once

#include "core/tensor.h"

#include <cstdint>
#include <span>
#include <vector>

namespace forge::ag {

Tensor reshape(const Tensor& x, const Shape& shape);
Tensor transpose(const Tensor& x, int axis_a, int axis_b);
Tensor permute(const Tensor& x, std::span<const int> order);
Tensor narrow(const Tensor& x, int axis, std::int64_t start, std::int64_t length);
Tensor select(const Tensor& x, int axis, std::int64_t index);
Tensor unsqueeze(const Tensor& x, int axis);
Tensor squeeze(const Tensor& x, int axis);
Tensor broadcast_to(const Tensor& x, const Shape& shape);
Tensor contiguous(const Tensor& x);

Tensor concat(std::span<const Tensor> tensors, int axis);
std::vector<Tensor> split(const Tensor& x, std::span<const std::int64_t> sizes, int axis);

}  // namespace forge::ag
