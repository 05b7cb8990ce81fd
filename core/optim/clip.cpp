#include "core/optim/clip.h"

#include "core/autograd/variable.h"
#include "core/ops/binary.h"

#include <cmath>

namespace forge::optim {

float clip_grad_norm(std::span<const Tensor> params, float max_norm) {
    // Squares summed in double, in parameter order: the same norm on any thread count.
    double squares = 0.0;
    for (const Tensor& p : params) {
        const Tensor g = ag::grad(p);
        if (!g.defined()) continue;
        for (float v : g.contiguous().span<float>()) squares += static_cast<double>(v) * v;
    }
    const auto norm = static_cast<float>(std::sqrt(squares));
    const float coefficient = max_norm / (norm + 1e-6f);
    if (coefficient < 1.0f) {
        for (const Tensor& p : params) {
            const Tensor g = ag::grad(p);
            if (g.defined()) ag::set_grad(p, g * coefficient);
        }
    }
    return norm;
}

}  // namespace forge::optim
