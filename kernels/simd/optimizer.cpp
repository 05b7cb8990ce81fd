// The optimizer updates with xsimd: the same operations, in the same order, as
// kernels/scalar/optimizer.cpp, a batch of elements at a time.
#include "kernels/optimizer.h"

#include "kernels/simd/vector_math.h"

namespace forge::kernels::simd {
namespace {

// Run f(offset, count) over the whole range: full batches, then the tail one element at a
// time through the scalar spec (no padding tricks needed: elements are independent).
template <typename Body, typename Tail>
void over_batches(std::size_t n, Body body, Tail tail) {
    std::size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) body(i);
    if (i < n) tail(i, n - i);
}

}  // namespace

void sgd_update(const SgdStep& s, std::span<float> param, std::span<const float> grad,
                std::span<float> momentum_buffer) noexcept {
    const Batch lr(-s.lr), momentum(s.momentum), keep(1.0f - s.dampening), wd(s.weight_decay);
    over_batches(
        param.size(),
        [&](std::size_t i) {
            Batch d = Batch::load_unaligned(grad.data() + i);
            const Batch p = Batch::load_unaligned(param.data() + i);
            if (s.weight_decay != 0.0f) d = d + wd * p;
            if (s.momentum != 0.0f) {
                Batch buf = s.first_step ? d : Batch::load_unaligned(momentum_buffer.data() + i) * momentum + keep * d;
                buf.store_unaligned(momentum_buffer.data() + i);
                d = s.nesterov ? d + momentum * buf : buf;
            }
            (p + lr * d).store_unaligned(param.data() + i);
        },
        [&](std::size_t i, std::size_t count) {
            scalar::sgd_update(s, param.subspan(i, count), grad.subspan(i, count),
                               s.momentum != 0.0f ? momentum_buffer.subspan(i, count) : momentum_buffer);
        });
}

void adam_update(const AdamStep& s, std::span<float> param, std::span<const float> grad, std::span<float> exp_avg,
                 std::span<float> exp_avg_sq) noexcept {
    const Batch step_size(-(s.lr / s.bias_correction1)), beta1(s.beta1), beta2(s.beta2);
    const Batch one_minus_beta1(1.0f - s.beta1), one_minus_beta2(1.0f - s.beta2);
    const Batch shrink(1.0f - s.lr * s.weight_decay), wd(s.weight_decay);
    const Batch bc2(s.bias_correction2_sqrt), eps(s.eps);
    over_batches(
        param.size(),
        [&](std::size_t i) {
            Batch g = Batch::load_unaligned(grad.data() + i);
            Batch p = Batch::load_unaligned(param.data() + i);
            if (s.decoupled) {
                p = p * shrink;
            } else if (s.weight_decay != 0.0f) {
                g = g + wd * p;
            }
            const Batch m = Batch::load_unaligned(exp_avg.data() + i) * beta1 + g * one_minus_beta1;
            const Batch v = Batch::load_unaligned(exp_avg_sq.data() + i) * beta2 + one_minus_beta2 * (g * g);
            m.store_unaligned(exp_avg.data() + i);
            v.store_unaligned(exp_avg_sq.data() + i);
            const Batch denom = xsimd::sqrt(v) / bc2 + eps;
            (p + step_size * (m / denom)).store_unaligned(param.data() + i);
        },
        [&](std::size_t i, std::size_t count) {
            scalar::adam_update(s, param.subspan(i, count), grad.subspan(i, count), exp_avg.subspan(i, count),
                                exp_avg_sq.subspan(i, count));
        });
}

}  // namespace forge::kernels::simd
