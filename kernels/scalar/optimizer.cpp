// The executable specification of the optimizer updates (see kernels/optimizer.h). Each line
// is one in-place op of torch.optim's single-tensor implementation, in the same order.
#include "kernels/optimizer.h"

#include <cmath>
#include <cstddef>

namespace forge::kernels::scalar {

void sgd_update(const SgdStep& s, std::span<float> param, std::span<const float> grad,
                std::span<float> momentum_buffer) noexcept {
    for (std::size_t i = 0; i < param.size(); ++i) {
        float d = grad[i];
        if (s.weight_decay != 0.0f) d = d + s.weight_decay * param[i];
        if (s.momentum != 0.0f) {
            float& buf = momentum_buffer[i];
            buf = s.first_step ? d : buf * s.momentum + (1.0f - s.dampening) * d;
            d = s.nesterov ? d + s.momentum * buf : buf;
        }
        param[i] = param[i] + -s.lr * d;
    }
}

void adam_update(const AdamStep& s, std::span<float> param, std::span<const float> grad, std::span<float> exp_avg,
                 std::span<float> exp_avg_sq) noexcept {
    const float step_size = s.lr / s.bias_correction1;
    for (std::size_t i = 0; i < param.size(); ++i) {
        float g = grad[i];
        if (s.decoupled) {
            param[i] = param[i] * (1.0f - s.lr * s.weight_decay);
        } else if (s.weight_decay != 0.0f) {
            g = g + s.weight_decay * param[i];
        }
        exp_avg[i] = exp_avg[i] * s.beta1 + g * (1.0f - s.beta1);
        exp_avg_sq[i] = exp_avg_sq[i] * s.beta2 + (1.0f - s.beta2) * (g * g);
        const float denom = std::sqrt(exp_avg_sq[i]) / s.bias_correction2_sqrt + s.eps;
        param[i] = param[i] + -step_size * (exp_avg[i] / denom);
    }
}

}  // namespace forge::kernels::scalar
