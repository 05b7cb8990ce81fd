// The argument check shared by the f32 op front-ends: a defined tensor of dtype f32.
#pragma once

#include "core/tensor.h"

#include <string_view>

namespace forge {

inline void check_f32(const Tensor& x, std::string_view op, std::string_view argument = "input") {
    check(x.defined(), "{}: {} is an undefined tensor", op, argument);
    check(x.dtype() == DType::F32, "{}: {} must be f32, got {} (shape {})", op, argument, dtype_name(x.dtype()),
          x.shape().to_string());
}

}  // namespace forge
