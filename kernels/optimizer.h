// Parameter updates of the element-wise optimizers, one pass over a parameter's elements.
//
// The arithmetic follows torch.optim (PyTorch 1.13, single-tensor path) operation by
// operation, so a few steps agree with it to float rounding. All spans have the same length;
// the front-end (core/optim/) splits long parameters across threads.
#pragma once

#include <span>

namespace forge::kernels {

struct SgdStep {
    float lr;
    float momentum;      // 0: plain SGD, no buffer used
    float dampening;
    float weight_decay;  // L2: added to the gradient
    bool nesterov;
    bool first_step;     // the momentum buffer starts as a copy of the gradient
};

struct AdamStep {
    float lr;
    float beta1, beta2, eps;
    float weight_decay;
    bool decoupled;            // AdamW: shrink the parameter; Adam: add to the gradient (L2)
    float bias_correction1;    // 1 - beta1^t
    float bias_correction2_sqrt;  // sqrt(1 - beta2^t)
};

namespace scalar {
void sgd_update(const SgdStep& step, std::span<float> param, std::span<const float> grad,
                std::span<float> momentum_buffer) noexcept;
void adam_update(const AdamStep& step, std::span<float> param, std::span<const float> grad, std::span<float> exp_avg,
                 std::span<float> exp_avg_sq) noexcept;
}  // namespace scalar

namespace simd {
void sgd_update(const SgdStep& step, std::span<float> param, std::span<const float> grad,
                std::span<float> momentum_buffer) noexcept;
void adam_update(const AdamStep& step, std::span<float> param, std::span<const float> grad, std::span<float> exp_avg,
                 std::span<float> exp_avg_sq) noexcept;
}  // namespace simd

}  // namespace forge::kernels
