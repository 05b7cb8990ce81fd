// Embedding lookup: rows of a table picked by integer ids.
#pragma once

#include "core/tensor.h"

namespace forge {

// table [V, D] (f32 or f16), ids of any shape (i32 or i64, each in [0, V)) -> ids.shape + [D],
// f32. An id out of range is an error naming the id and its position.
Tensor embedding(const Tensor& table, const Tensor& ids);

}  // namespace forge
