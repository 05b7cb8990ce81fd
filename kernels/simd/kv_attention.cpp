#include "kernels/kv_attention.h"

#include "kernels/simd/widen.h"

#include <algorithm>
#include <type_traits>

namespace forge::kernels::simd {
namespace {

constexpr std::size_t kLanes = static_cast<std::size_t>(kFloatLanes);
constexpr std::size_t kMaxQueries = 4;  // queries sharing one pass over the cached rows
// Accumulators the weighted sum of value rows keeps in registers: half of the vector
// registers (32 with AVX-512, 16 below), the rest hold the row being read and a weight.
constexpr std::size_t kAccumulators = kLanes >= 16 ? 16 : 8;

// Call visit(integral_constant<Q>, first) for the queries in groups of at most kMaxQueries, so
// that each group's count is a compile-time constant (its accumulators stay in registers).
template <typename Visit>
void in_query_groups(std::size_t n_q, Visit visit) {
    for (std::size_t first = 0; first < n_q; first += kMaxQueries) {
        switch (std::min(kMaxQueries, n_q - first)) {
            case 1: visit(std::integral_constant<std::size_t, 1>{}, first); break;
            case 2: visit(std::integral_constant<std::size_t, 2>{}, first); break;
            case 3: visit(std::integral_constant<std::size_t, 3>{}, first); break;
            default: visit(std::integral_constant<std::size_t, 4>{}, first); break;
        }
    }
}

// Q queries against R rows: R * Q independent sums, each row widened once per batch.
template <typename Element, std::size_t Q, std::size_t R>
void dot_tile(const float* q, std::size_t dim, const Element* first_row, std::size_t stride, float* scores,
              std::size_t n_keys) {
    FloatBatch acc[R][Q];
    for (auto& row : acc) {
        for (auto& a : row) a = FloatBatch(0.0f);
    }
    const std::size_t whole = dim / kLanes * kLanes;
    for (std::size_t d = 0; d < whole; d += kLanes) {
        FloatBatch qd[Q];
        for (std::size_t i = 0; i < Q; ++i) qd[i] = FloatBatch::load_unaligned(q + i * dim + d);
        for (std::size_t r = 0; r < R; ++r) {
            const FloatBatch k = load_widened(first_row + r * stride + d);
            for (std::size_t i = 0; i < Q; ++i) acc[r][i] = xsimd::fma(qd[i], k, acc[r][i]);
        }
    }
    for (std::size_t r = 0; r < R; ++r) {
        for (std::size_t i = 0; i < Q; ++i) {
            float sum = xsimd::hadd(acc[r][i]);
            for (std::size_t d = whole; d < dim; ++d) sum += q[i * dim + d] * widen(first_row[r * stride + d]);
            scores[i * n_keys + r] = sum;
        }
    }
}

template <typename Element, std::size_t Q>
void dot_queries(const float* q, std::size_t dim, const Element* rows, std::size_t stride, float* scores,
                 std::size_t n_keys) {
    constexpr std::size_t R = Q <= 2 ? 4 : 2;  // at least 4 sums in flight
    std::size_t j = 0;
    for (; j + R <= n_keys; j += R) dot_tile<Element, Q, R>(q, dim, rows + j * stride, stride, scores + j, n_keys);
    for (; j < n_keys; ++j) dot_tile<Element, Q, 1>(q, dim, rows + j * stride, stride, scores + j, n_keys);
}

// out[i * dim + (0 .. B * kLanes)] += sum_j weights[i * n_keys + j] * row_j for Q queries, the
// sums held in registers while the rows stream by.
template <typename Element, std::size_t Q, std::size_t B>
void accumulate_block(const float* weights, std::size_t n_keys, const Element* rows, std::size_t stride, float* out,
                      std::size_t dim) {
    FloatBatch acc[Q][B];
    for (std::size_t i = 0; i < Q; ++i) {
        for (std::size_t b = 0; b < B; ++b) acc[i][b] = FloatBatch::load_unaligned(out + i * dim + b * kLanes);
    }
    for (std::size_t j = 0; j < n_keys; ++j) {
        FloatBatch v[B];
        for (std::size_t b = 0; b < B; ++b) v[b] = load_widened(rows + j * stride + b * kLanes);
        for (std::size_t i = 0; i < Q; ++i) {
            const FloatBatch w(weights[i * n_keys + j]);
            for (std::size_t b = 0; b < B; ++b) acc[i][b] = xsimd::fma(w, v[b], acc[i][b]);
        }
    }
    for (std::size_t i = 0; i < Q; ++i) {
        for (std::size_t b = 0; b < B; ++b) acc[i][b].store_unaligned(out + i * dim + b * kLanes);
    }
}

// Blocks of B vectors while they fit, then narrower ones (a head of 64 values still takes
// wide blocks when B * kLanes is 128), the last few values one at a time.
template <typename Element, std::size_t Q, std::size_t B>
void accumulate_from(std::size_t d, const float* weights, std::size_t n_keys, const Element* rows, std::size_t stride,
                     float* out, std::size_t dim) {
    for (; d + B * kLanes <= dim; d += B * kLanes) {
        accumulate_block<Element, Q, B>(weights, n_keys, rows + d, stride, out + d, dim);
    }
    if constexpr (B > 1) {
        accumulate_from<Element, Q, B / 2>(d, weights, n_keys, rows, stride, out, dim);
    } else {
        for (; d < dim; ++d) {
            for (std::size_t i = 0; i < Q; ++i) {
                float sum = out[i * dim + d];
                for (std::size_t j = 0; j < n_keys; ++j) sum += weights[i * n_keys + j] * widen(rows[j * stride + d]);
                out[i * dim + d] = sum;
            }
        }
    }
}

template <typename Element, std::size_t Q>
void accumulate_queries(const float* weights, std::size_t n_keys, const Element* rows, std::size_t stride,
                        float* out, std::size_t dim) {
    constexpr std::size_t B = std::min<std::size_t>(8, kAccumulators / Q);  // vectors of each row per pass
    accumulate_from<Element, Q, B>(0, weights, n_keys, rows, stride, out, dim);
}

}  // namespace

template <typename Element>
void kv_dot_rows(std::span<const float> q, std::size_t dim, std::span<const Element> rows, std::size_t stride,
                 std::span<float> scores) noexcept {
    const std::size_t n_q = q.size() / dim, n_keys = scores.size() / n_q;
    in_query_groups(n_q, [&](auto queries, std::size_t first) {
        dot_queries<Element, decltype(queries)::value>(q.data() + first * dim, dim, rows.data(), stride,
                                                       scores.data() + first * n_keys, n_keys);
    });
}

template <typename Element>
void kv_accumulate_rows(std::span<const float> weights, std::size_t dim, std::span<const Element> rows,
                        std::size_t stride, std::span<float> out) noexcept {
    const std::size_t n_q = out.size() / dim, n_keys = weights.size() / n_q;
    in_query_groups(n_q, [&](auto queries, std::size_t first) {
        accumulate_queries<Element, decltype(queries)::value>(weights.data() + first * n_keys, n_keys, rows.data(),
                                                              stride, out.data() + first * dim, dim);
    });
}

template void kv_dot_rows<float>(std::span<const float>, std::size_t, std::span<const float>, std::size_t,
                                 std::span<float>) noexcept;
template void kv_dot_rows<std::uint16_t>(std::span<const float>, std::size_t, std::span<const std::uint16_t>,
                                         std::size_t, std::span<float>) noexcept;
template void kv_accumulate_rows<float>(std::span<const float>, std::size_t, std::span<const float>, std::size_t,
                                        std::span<float>) noexcept;
template void kv_accumulate_rows<std::uint16_t>(std::span<const float>, std::size_t, std::span<const std::uint16_t>,
                                                std::size_t, std::span<float>) noexcept;

}  // namespace forge::kernels::simd
