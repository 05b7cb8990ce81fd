#include "models/llm/attention.h"

#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/softmax.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace forge::llm {

namespace {

// Eight independent partial sums so the compiler can keep them in one vector register.
float dot(const float* a, const float* b, std::int64_t n) {
    float partial[8] = {};
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        for (int lane = 0; lane < 8; ++lane) partial[lane] += a[i + lane] * b[i + lane];
    }
    float sum = 0.0f;
    for (; i < n; ++i) sum += a[i] * b[i];
    for (float p : partial) sum += p;
    return sum;
}

// Per-thread room for one query's scores and one converted cache row. Sized for the whole
// context on first use, so a growing conversation never reallocates it.
struct HeadScratch {
    std::vector<float> scores;
    std::vector<float> row;
};

HeadScratch& head_scratch(std::int64_t n_keys, std::int64_t head_dim) {
    thread_local HeadScratch scratch;
    if (static_cast<std::int64_t>(scratch.scores.size()) < n_keys) scratch.scores.resize(static_cast<std::size_t>(n_keys));
    if (static_cast<std::int64_t>(scratch.row.size()) < head_dim) scratch.row.resize(static_cast<std::size_t>(head_dim));
    return scratch;
}

void attend_one(const KvCache& cache, std::int64_t layer, const AttentionShape& s, std::int64_t token, std::int64_t head,
                const float* q, float* out) {
    const std::int64_t n_keys = s.pos0 + token + 1;
    const std::int64_t kv_head = head / (s.n_head / s.n_head_kv);
    HeadScratch& scratch = head_scratch(cache.n_ctx(), s.head_dim);
    const std::span<float> scores(scratch.scores.data(), static_cast<std::size_t>(n_keys));
    for (std::int64_t j = 0; j < n_keys; ++j) {
        scores[static_cast<std::size_t>(j)] = dot(q, cache.key(layer, j, kv_head, scratch.row), s.head_dim);
    }
    const float scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
    kernels::active::softmax(scores, scale, scores.size(), scores);
    std::fill(out, out + s.head_dim, 0.0f);
    for (std::int64_t j = 0; j < n_keys; ++j) {
        const float p = scores[static_cast<std::size_t>(j)];
        const float* v = cache.value(layer, j, kv_head, scratch.row);
        for (std::int64_t d = 0; d < s.head_dim; ++d) out[d] += p * v[d];
    }
}

}  // namespace

void attention(const KvCache& cache, std::int64_t layer, const AttentionShape& s, std::span<const float> q,
               std::span<float> out) {
    const std::int64_t width = s.n_head * s.head_dim;
    ThreadPool::global().parallel_for(s.n_tokens * s.n_head, 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t task = begin; task < end; ++task) {
            const std::int64_t token = task / s.n_head, head = task % s.n_head;
            const std::int64_t at = token * width + head * s.head_dim;
            attend_one(cache, layer, s, token, head, q.data() + at, out.data() + at);
        }
    });
}

}  // namespace forge::llm
