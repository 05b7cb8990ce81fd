// Global gradient-norm clipping, as torch.nn.utils.clip_grad_norm_.
#pragma once

#include "core/tensor.h"

#include <span>

namespace forge::optim {

// The L2 norm of all the parameters' gradients taken together, before clipping; when it
// exceeds max_norm, every gradient is scaled by max_norm / (norm + 1e-6).
float clip_grad_norm(std::span<const Tensor> params, float max_norm);

}  // namespace forge::optim
