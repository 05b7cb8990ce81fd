// Joining tensors along an axis, and cutting one apart again.
#pragma once

#include "core/tensor.h"

#include <cstdint>
#include <span>
#include <vector>

namespace forge {

// The tensors joined along `axis` (negative counts from the end). All must have the same
// dtype and rank and agree on every other axis; the result is a fresh contiguous tensor.
Tensor concat(std::span<const Tensor> tensors, int axis);

// x cut along `axis` into consecutive pieces of the given sizes, which must add up to the
// axis size. The pieces are views of x (no copy), like narrow().
std::vector<Tensor> split(const Tensor& x, std::span<const std::int64_t> sizes, int axis);

}  // namespace forge
