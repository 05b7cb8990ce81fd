// Differentiable embedding lookup: the table's gradient is a scatter-add of the output
// gradient rows at the looked-up ids (repeated ids add up).
#pragma once

#include "core/tensor.h"

namespace forge::ag {

Tensor embedding(const Tensor& table, const Tensor& ids);

}  // namespace forge::ag
