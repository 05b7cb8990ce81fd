#include "kernels/kv_attention.h"

#include "kernels/simd/widen.h"

#include <algorithm>

namespace forge::kernels::simd {
namespace {

constexpr std::size_t kLanes = static_cast<std::size_t>(kFloatLanes);
constexpr std::size_t kRowsAtOnce = 4;  // independent dot products in flight per q load

// Dot products of q with kRowsAtOnce rows (or fewer), whole batches first, then the tail.
template <typename Element, std::size_t Rows>
void dot_some_rows(std::span<const float> q, const Element* first_row, std::size_t stride, float* scores) {
    FloatBatch acc[Rows];
    for (auto& a : acc) a = FloatBatch(0.0f);
    const std::size_t whole = q.size() / kLanes * kLanes;
    for (std::size_t d = 0; d < whole; d += kLanes) {
        const FloatBatch qd = FloatBatch::load_unaligned(q.data() + d);
        for (std::size_t r = 0; r < Rows; ++r) acc[r] = xsimd::fma(qd, load_widened(first_row + r * stride + d), acc[r]);
    }
    for (std::size_t r = 0; r < Rows; ++r) {
        float sum = xsimd::hadd(acc[r]);
        for (std::size_t d = whole; d < q.size(); ++d) sum += q[d] * widen(first_row[r * stride + d]);
        scores[r] = sum;
    }
}

}  // namespace

template <typename Element>
void kv_dot_rows(std::span<const float> q, std::span<const Element> rows, std::size_t stride,
                 std::span<float> scores) noexcept {
    std::size_t j = 0;
    for (; j + kRowsAtOnce <= scores.size(); j += kRowsAtOnce) {
        dot_some_rows<Element, kRowsAtOnce>(q, rows.data() + j * stride, stride, scores.data() + j);
    }
    for (; j < scores.size(); ++j) dot_some_rows<Element, 1>(q, rows.data() + j * stride, stride, scores.data() + j);
}

namespace {

// out[d0, d0 + Batches * kLanes) += sum_j weights[j] * row_j, the sums held in registers.
template <typename Element, std::size_t Batches>
void accumulate_block(std::span<const float> weights, const Element* rows, std::size_t stride, float* out) {
    FloatBatch acc[Batches];
    for (std::size_t b = 0; b < Batches; ++b) acc[b] = FloatBatch::load_unaligned(out + b * kLanes);
    for (std::size_t j = 0; j < weights.size(); ++j) {
        const FloatBatch w(weights[j]);
        const Element* row = rows + j * stride;
        for (std::size_t b = 0; b < Batches; ++b) acc[b] = xsimd::fma(w, load_widened(row + b * kLanes), acc[b]);
    }
    for (std::size_t b = 0; b < Batches; ++b) acc[b].store_unaligned(out + b * kLanes);
}

}  // namespace

template <typename Element>
void kv_accumulate_rows(std::span<const float> weights, std::span<const Element> rows, std::size_t stride,
                        std::span<float> out) noexcept {
    constexpr std::size_t kBlock = 4;  // batches of out kept in registers while the rows stream by
    std::size_t d = 0;
    for (; d + kBlock * kLanes <= out.size(); d += kBlock * kLanes) {
        accumulate_block<Element, kBlock>(weights, rows.data() + d, stride, out.data() + d);
    }
    for (; d + kLanes <= out.size(); d += kLanes) accumulate_block<Element, 1>(weights, rows.data() + d, stride, out.data() + d);
    for (; d < out.size(); ++d) {
        float sum = out[d];
        for (std::size_t j = 0; j < weights.size(); ++j) sum += weights[j] * widen(rows[j * stride + d]);
        out[d] = sum;
    }
}

template void kv_dot_rows<float>(std::span<const float>, std::span<const float>, std::size_t, std::span<float>) noexcept;
template void kv_dot_rows<std::uint16_t>(std::span<const float>, std::span<const std::uint16_t>, std::size_t,
                                         std::span<float>) noexcept;
template void kv_accumulate_rows<float>(std::span<const float>, std::span<const float>, std::size_t,
                                        std::span<float>) noexcept;
template void kv_accumulate_rows<std::uint16_t>(std::span<const float>, std::span<const std::uint16_t>, std::size_t,
                                                std::span<float>) noexcept;

}  // namespace forge::kernels::simd
