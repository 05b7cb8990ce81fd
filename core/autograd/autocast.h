// Mixed precision for training, per thread: the precision differentiable matrix products
// (ag::matmul, ag::linear) run in, forward and backward (torch.autocast's role for matmuls).
//
// Under an AutocastScope(MatmulPrecision::bf16) each product rounds its operands to bf16 and
// sums in f32 (core/ops/matmul_precision.h); everything else (norms, softmax, the loss, the
// optimizer) stays f32, and so do the parameters and their gradients. A product's backward
// runs its two products in the precision its forward ran in, whatever thread runs it.
#pragma once

#include "core/ops/matmul_precision.h"

namespace forge::ag {

MatmulPrecision autocast_precision();

// RAII: sets the precision of this thread's differentiable products until the scope ends.
class AutocastScope {
public:
    explicit AutocastScope(MatmulPrecision precision);
    ~AutocastScope();
    AutocastScope(const AutocastScope&) = delete;
    AutocastScope& operator=(const AutocastScope&) = delete;

private:
    MatmulPrecision previous_;
};

}  // namespace forge::ag
