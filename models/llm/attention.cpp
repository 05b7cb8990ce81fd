#include "models/llm/attention.h"

#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/kv_attention.h"
#include "kernels/softmax.h"

#include <algorithm>
#include <cmath>

namespace forge::llm {

namespace {

using Part = KvCache::Part;

// softmax(q·k / sqrt(head_dim)) over the visible keys (one per entry of `scores`), then the
// weighted sum of their values. The cache is read in place, f16 widened inside the kernels.
template <typename Element>
void attend(std::span<const float> q, std::span<const Element> keys, std::span<const Element> values,
            std::size_t stride, std::span<float> scores, std::span<float> out) {
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.size()));
    kernels::active::kv_dot_rows(q, keys, stride, scores);
    kernels::active::softmax(scores, scale, scores.size(), scores);
    std::fill(out.begin(), out.end(), 0.0f);
    kernels::active::kv_accumulate_rows(std::span<const float>(scores), values, stride, out);
}

// One query head of one token.
void attend_one(const KvCache& cache, std::int64_t layer, const AttentionShape& s, std::int64_t head,
                std::span<const float> q, std::span<float> out, std::span<float> scores) {
    const std::int64_t kv_head = head / (s.n_head / s.n_head_kv);
    const auto stride = static_cast<std::size_t>(cache.kv_width());
    if (cache.type() == KvType::F32) {
        attend(q, cache.head_rows_f32(layer, Part::Keys, kv_head), cache.head_rows_f32(layer, Part::Values, kv_head),
               stride, scores, out);
    } else {
        attend(q, cache.head_rows_f16(layer, Part::Keys, kv_head), cache.head_rows_f16(layer, Part::Values, kv_head),
               stride, scores, out);
    }
}

}  // namespace

void attention(const KvCache& cache, std::int64_t layer, const AttentionShape& s, std::span<const float> q,
               std::span<float> out, AttentionScratch& scratch) {
    const std::int64_t width = s.n_head * s.head_dim;
    const std::int64_t n_tasks = s.n_tokens * s.n_head;
    const int slots = static_cast<int>(std::min<std::int64_t>(scratch.slots(), n_tasks));
    // Each slot owns a row of scores and takes every slots-th (token, head): later tokens see
    // more keys, so interleaving keeps the slots' work even.
    ThreadPool::global().run(slots, [&](std::int64_t slot) {
        for (std::int64_t task = slot; task < n_tasks; task += slots) {
            const std::int64_t token = task / s.n_head, head = task % s.n_head;
            const auto at = static_cast<std::size_t>(token * width + head * s.head_dim);
            const auto dim = static_cast<std::size_t>(s.head_dim);
            attend_one(cache, layer, s, head, q.subspan(at, dim), std::span(out).subspan(at, dim),
                       scratch.scores(static_cast<int>(slot), s.pos0 + token + 1));
        }
    });
}

}  // namespace forge::llm
