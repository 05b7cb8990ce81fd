#include "kernels/kv_attention.h"

#include "kernels/half.h"

namespace forge::kernels::scalar {
namespace {

float widen(float value) { return value; }
float widen(std::uint16_t half) { return f16_to_f32(half); }

}  // namespace

template <typename Element>
void kv_dot_rows(std::span<const float> q, std::size_t dim, std::span<const Element> rows, std::size_t stride,
                 std::span<float> scores) noexcept {
    const std::size_t n_q = q.size() / dim, n_keys = scores.size() / n_q;
    for (std::size_t i = 0; i < n_q; ++i) {
        for (std::size_t j = 0; j < n_keys; ++j) {
            float sum = 0.0f;
            for (std::size_t d = 0; d < dim; ++d) sum += q[i * dim + d] * widen(rows[j * stride + d]);
            scores[i * n_keys + j] = sum;
        }
    }
}

template <typename Element>
void kv_accumulate_rows(std::span<const float> weights, std::size_t dim, std::span<const Element> rows,
                        std::size_t stride, std::span<float> out) noexcept {
    const std::size_t n_q = out.size() / dim, n_keys = weights.size() / n_q;
    for (std::size_t i = 0; i < n_q; ++i) {
        for (std::size_t j = 0; j < n_keys; ++j) {
            for (std::size_t d = 0; d < dim; ++d) out[i * dim + d] += weights[i * n_keys + j] * widen(rows[j * stride + d]);
        }
    }
}

template void kv_dot_rows<float>(std::span<const float>, std::size_t, std::span<const float>, std::size_t,
                                 std::span<float>) noexcept;
template void kv_dot_rows<std::uint16_t>(std::span<const float>, std::size_t, std::span<const std::uint16_t>,
                                         std::size_t, std::span<float>) noexcept;
template void kv_accumulate_rows<float>(std::span<const float>, std::size_t, std::span<const float>, std::size_t,
                                        std::span<float>) noexcept;
template void kv_accumulate_rows<std::uint16_t>(std::span<const float>, std::size_t, std::span<const std::uint16_t>,
                                                std::size_t, std::span<float>) noexcept;

}  // namespace forge::kernels::scalar
