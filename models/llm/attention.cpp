#include "models/llm/attention.h"

#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/half.h"
#include "kernels/kv_attention.h"
#include "kernels/softmax.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace forge::llm {

namespace {

using Part = KvCache::Part;

// With an f16 cache, llama.cpp (ggml) computes q·k and weights·v against the f16 rows with the
// other operand rounded to f16 as well (ggml's vec_dot_type for F16 is F16): each query before
// the scores, each softmax weight before the sum of values. forge rounds the same two places,
// so an f16 cache gives llama.cpp's numbers. Measured on the committed goldens against
// llama.cpp's f16 cache (test/models/llm/oracle_test.cpp): max |Δlogit| / max |logit| 6.5e-4 to
// 9.7e-4 without the rounding, 1.8e-6 to 5.9e-5 with it (f32 weights); Q8_0 1e-7.
void round_to_f16(std::span<float> values) {
    for (float& v : values) v = kernels::f16_to_f32(kernels::f32_to_f16(v));
}

// The query heads that share one kv head (q and out: n_q heads of `dim` values, one after the
// other), over n_keys visible positions: per query softmax(q·k / sqrt(dim)), then the weighted
// sum of the values. `scores` holds [n_q, n_keys]. The cache is read in place, each row
// widened once for the whole group inside the kernels.
template <typename Element>
void attend_group(std::span<const float> q, std::size_t dim, std::span<const Element> keys,
                  std::span<const Element> values, std::size_t stride, std::span<float> scores, std::span<float> out) {
    const std::size_t n_keys = scores.size() / (q.size() / dim);
    const float scale = 1.0f / std::sqrt(static_cast<float>(dim));
    kernels::active::kv_dot_rows(q, dim, keys, stride, scores);
    for (std::size_t at = 0; at < scores.size(); at += n_keys) {
        const auto row = scores.subspan(at, n_keys);
        kernels::active::softmax(row, scale, n_keys, row);
    }
    if constexpr (std::is_same_v<Element, std::uint16_t>) round_to_f16(scores);
    std::fill(out.begin(), out.end(), 0.0f);
    kernels::active::kv_accumulate_rows(std::span<const float>(scores), dim, values, stride, out);
}

void attend_kv_head(const KvCache& cache, std::int64_t layer, std::int64_t kv_head, std::size_t dim,
                    std::span<float> q, std::span<float> out, std::span<float> scores) {
    const auto stride = static_cast<std::size_t>(cache.kv_width());
    if (cache.type() == KvType::F32) {
        attend_group(std::span<const float>(q), dim, cache.head_rows_f32(layer, Part::Keys, kv_head),
                     cache.head_rows_f32(layer, Part::Values, kv_head), stride, scores, out);
    } else {
        round_to_f16(q);
        attend_group(std::span<const float>(q), dim, cache.head_rows_f16(layer, Part::Keys, kv_head),
                     cache.head_rows_f16(layer, Part::Values, kv_head), stride, scores, out);
    }
}

}  // namespace

void attention(const KvCache& cache, std::int64_t layer, const AttentionShape& s, std::span<float> q,
               std::span<float> out, AttentionScratch& scratch) {
    const std::int64_t width = s.n_head * s.head_dim;
    const std::int64_t group = s.n_head / s.n_head_kv;  // query heads h*group .. h*group+group-1 read kv head h
    const std::int64_t n_tasks = s.n_tokens * s.n_head_kv;
    const int slots = static_cast<int>(std::min<std::int64_t>(scratch.slots(), n_tasks));
    const auto dim = static_cast<std::size_t>(s.head_dim);
    const auto group_values = static_cast<std::size_t>(group * s.head_dim);
    // Each slot owns a scores buffer and takes every slots-th (token, kv head): later tokens
    // see more keys, so interleaving keeps the slots' work even.
    ThreadPool::global().run(slots, [&](std::int64_t slot) {
        for (std::int64_t task = slot; task < n_tasks; task += slots) {
            const std::int64_t token = task / s.n_head_kv, kv_head = task % s.n_head_kv;
            const auto at = static_cast<std::size_t>(token * width + kv_head * group * s.head_dim);
            attend_kv_head(cache, layer, kv_head, dim, q.subspan(at, group_values), std::span(out).subspan(at, group_values),
                         scratch.scores(static_cast<int>(slot), group * (s.pos0 + token + 1)));
        }
    });
}

}  // namespace forge::llm
