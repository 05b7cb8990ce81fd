#include "kernels/kv_attention.h"

#include "kernels/half.h"

namespace forge::kernels::scalar {
namespace {

float widen(float value) { return value; }
float widen(std::uint16_t half) { return f16_to_f32(half); }

}  // namespace

template <typename Element>
void kv_dot_rows(std::span<const float> q, std::span<const Element> rows, std::size_t stride,
                 std::span<float> scores) noexcept {
    for (std::size_t j = 0; j < scores.size(); ++j) {
        const Element* row = rows.data() + j * stride;
        float sum = 0.0f;
        for (std::size_t d = 0; d < q.size(); ++d) sum += q[d] * widen(row[d]);
        scores[j] = sum;
    }
}

template <typename Element>
void kv_accumulate_rows(std::span<const float> weights, std::span<const Element> rows, std::size_t stride,
                        std::span<float> out) noexcept {
    for (std::size_t j = 0; j < weights.size(); ++j) {
        const Element* row = rows.data() + j * stride;
        for (std::size_t d = 0; d < out.size(); ++d) out[d] += weights[j] * widen(row[d]);
    }
}

template void kv_dot_rows<float>(std::span<const float>, std::span<const float>, std::size_t, std::span<float>) noexcept;
template void kv_dot_rows<std::uint16_t>(std::span<const float>, std::span<const std::uint16_t>, std::size_t,
                                         std::span<float>) noexcept;
template void kv_accumulate_rows<float>(std::span<const float>, std::span<const float>, std::size_t,
                                        std::span<float>) noexcept;
template void kv_accumulate_rows<std::uint16_t>(std::span<const float>, std::span<const std::uint16_t>, std::size_t,
                                                std::span<float>) noexcept;

}  // namespace forge::kernels::scalar
