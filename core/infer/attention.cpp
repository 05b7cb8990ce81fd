#include "core/infer/attention.h"

#include "core/error.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/convert.h"
#include "kernels/dequantize.h"
#include "kernels/kv_attention.h"
#include "kernels/quantize.h"
#include "kernels/softmax.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace forge::infer {

namespace {

using Part = KvCache::Part;

// With an f16 cache, llama.cpp (ggml) computes q·k and weights·v against the f16 rows with the
// other operand rounded to f16 as well (ggml's vec_dot_type for F16 is F16): each query before
// the scores, each softmax weight before the sum of values. Rounding the same two places gives
// llama.cpp's numbers (main measured max |Δlogit| / max |logit| 6.5e-4..9.7e-4 without, 1.8e-6..
// 5.9e-5 with, f32 weights). Per row, so rows stay independent of their batch neighbours.
// Through the backend's row conversions (bit-exact with kernels/half.h), a stack chunk at a
// time: a value at a time was 3% of a 4-sequence Q4_0 decode.
void round_to_f16(std::span<float> values) {
    constexpr std::size_t kChunk = 256;
    std::array<std::uint16_t, kChunk> halves;
    for (std::size_t at = 0; at < values.size(); at += kChunk) {
        const auto part = values.subspan(at, std::min(kChunk, values.size() - at));
        const auto bits = std::span(halves).first(part.size());
        kernels::active::f32_to_f16(std::span<const float>(part), bits);
        kernels::active::f16_to_f32(std::span<const std::uint16_t>(bits), part);
    }
}

// With a Q8_0 cache, llama.cpp (flash attention, the only way it stores a quantized V) scores
// q·k with q quantized to Q8_0 (the cache's vec_dot_type); rounding q the same way gives its
// numbers (measured max |Δlogit| / max |logit| 1.1e-2..2.6e-2 on qwen3-q8_0-head32 without,
// see test/models/llm/oracle_test.cpp with). Block by block, so no scratch is needed.
void round_to_q8_0(std::span<float> values) {
    kernels::BlockQ8_0 block;
    for (std::size_t at = 0; at < values.size(); at += 32) {
        const auto part = values.subspan(at, 32);
        kernels::active::quantize(std::span<const float>(part), std::span(&block, 1));
        kernels::active::dequantize(std::span<const kernels::BlockQ8_0>(&block, 1), part);
    }
}

// One softmax row of scores (probabilities p_j = e^{z_j - m} / S, m the largest scaled score
// z_j) made to include a sink logit s: p_j S / (S + e^{s - m}). The largest p is e^0 / S, so
// S = 1 / max p and the correction is one factor, 1 / (1 + e^{s - m} max p).
void add_sink(std::span<float> probs, float max_score, float sink) {
    const float largest = *std::max_element(probs.begin(), probs.end());
    const float factor = 1.0f / (1.0f + std::exp(sink - max_score) * largest);
    for (float& p : probs) p *= factor;
}

// One run of consecutive cache rows of one kv head: `count` keys and their values.
template <typename Element>
struct KeyRun {
    std::span<const Element> keys, values;
    std::size_t count;
};

// The query heads that share one kv head (q and out: n_q heads of `dim` values, one after the
// other), over the visible keys, in position order, in one run or (a sliding window that
// wraps around its ring) two: per query softmax(scale * q·k) (with that head's sink, when
// `sinks` holds one per query head), then the weighted sum of the values. `scores` holds [n_q, n_keys]. The cache is read in place; one run is done for the
// whole group at once, each row widened once inside the kernels.
template <typename Element>
void attend_group(std::span<const float> q, std::size_t dim, std::span<const KeyRun<Element>> runs,
                  std::size_t stride, float scale, std::span<float> scores, std::span<float> out,
                  std::span<const float> sinks) {
    const std::size_t n_q = q.size() / dim, n_keys = scores.size() / n_q;
    const bool one_run = runs.size() == 1;
    if (one_run) kernels::active::kv_dot_rows(q, dim, runs[0].keys, stride, scores);
    for (std::size_t i = 0; i < n_q && !one_run; ++i) {
        std::size_t at = i * n_keys;
        for (const KeyRun<Element>& run : runs) {
            kernels::active::kv_dot_rows(q.subspan(i * dim, dim), dim, run.keys, stride, scores.subspan(at, run.count));
            at += run.count;
        }
    }
    for (std::size_t at = 0, head = 0; at < scores.size(); at += n_keys, ++head) {
        const auto row = scores.subspan(at, n_keys);
        const float max_score = sinks.empty() ? 0.0f : scale * *std::max_element(row.begin(), row.end());
        kernels::active::softmax(row, scale, n_keys, row);
        if (!sinks.empty()) add_sink(row, max_score, sinks[head]);
    }
    if constexpr (std::is_same_v<Element, std::uint16_t>) round_to_f16(scores);
    std::fill(out.begin(), out.end(), 0.0f);
    if (one_run) kernels::active::kv_accumulate_rows(std::span<const float>(scores), dim, runs[0].values, stride, out);
    for (std::size_t i = 0; i < n_q && !one_run; ++i) {
        std::size_t at = i * n_keys;
        for (const KeyRun<Element>& run : runs) {
            kernels::active::kv_accumulate_rows(std::span<const float>(scores.subspan(at, run.count)), dim, run.values,
                                                stride, out.subspan(i * dim, dim));
            at += run.count;
        }
    }
}

// The cache rows a query at `position` of `layer` sees: its window (or every position up to
// it) as one run of rows, or two where the window wraps around the layer's ring.
struct RowRun {
    std::int64_t row, count;
};
struct VisibleRows {
    std::array<RowRun, 2> runs;
    std::size_t n_runs;
    std::size_t n_keys;
};

VisibleRows visible_rows(const KvCache& cache, std::int64_t layer, std::int64_t position) {
    const std::int64_t window = cache.window(layer), rows = cache.rows(layer);
    const std::int64_t first = window > 0 ? std::max<std::int64_t>(0, position - window + 1) : 0;
    const std::int64_t n = position - first + 1, start = first % rows;
    const auto n_keys = static_cast<std::size_t>(n);
    if (start + n <= rows) return {{RowRun{start, n}, RowRun{}}, 1, n_keys};
    return {{RowRun{start, rows - start}, RowRun{0, n - (rows - start)}}, 2, n_keys};
}

// A Q8_0 head's rows of `runs` widened to f32, one after the other: [n_keys, dim].
std::span<const float> widen_q8_0(const KvCache& cache, std::int64_t layer, std::int64_t slot, KvCache::Part part,
                                  std::int64_t head, const VisibleRows& visible, std::size_t dim, std::span<float> out) {
    const std::size_t blocks_per_row = dim / 32, row_stride = static_cast<std::size_t>(cache.kv_width()) / 32;
    std::size_t at = 0;
    for (std::size_t r = 0; r < visible.n_runs; ++r) {
        const auto rows = cache.head_rows_q8_0(layer, slot, part, head, visible.runs[r].row);
        for (std::int64_t j = 0; j < visible.runs[r].count; ++j, at += dim) {
            kernels::active::dequantize(rows.subspan(static_cast<std::size_t>(j) * row_stride, blocks_per_row),
                                        out.subspan(at, dim));
        }
    }
    return out.first(at);
}

struct Task {
    std::int64_t layer, slot, kv_head, position;
    std::span<float> q;
    std::span<float> out;
    std::span<const float> sinks;  // the group's query heads' sinks, or empty
};

// The runs of one kv head of a slot in the cache's own storage.
template <typename Element, typename HeadRows>
std::array<KeyRun<Element>, 2> key_runs(const VisibleRows& visible, HeadRows head_rows) {
    std::array<KeyRun<Element>, 2> runs{};
    for (std::size_t r = 0; r < visible.n_runs; ++r) {
        const RowRun& run = visible.runs[r];
        runs[r] = {head_rows(Part::Keys, run.row), head_rows(Part::Values, run.row), static_cast<std::size_t>(run.count)};
    }
    return runs;
}

void attend(const KvCache& cache, const Task& t, std::size_t dim, float scale, AttentionScratch& scratch, int worker) {
    const VisibleRows visible = visible_rows(cache, t.layer, t.position);
    const std::span<float> scores = scratch.scores(worker, static_cast<std::int64_t>(t.q.size() / dim * visible.n_keys));
    const auto stride = static_cast<std::size_t>(cache.kv_width());
    switch (cache.type()) {
        case KvType::F32: {
            const auto runs = key_runs<float>(visible, [&](Part part, std::int64_t row) {
                return cache.head_rows_f32(t.layer, t.slot, part, t.kv_head, row);
            });
            return attend_group(std::span<const float>(t.q), dim, std::span(runs).first(visible.n_runs), stride, scale,
                                scores, t.out, t.sinks);
        }
        case KvType::F16: {
            round_to_f16(t.q);
            const auto runs = key_runs<std::uint16_t>(visible, [&](Part part, std::int64_t row) {
                return cache.head_rows_f16(t.layer, t.slot, part, t.kv_head, row);
            });
            return attend_group(std::span<const float>(t.q), dim, std::span(runs).first(visible.n_runs), stride, scale,
                                scores, t.out, t.sinks);
        }
        case KvType::Q8_0: {
            round_to_q8_0(t.q);
            const auto n = static_cast<std::int64_t>(visible.n_keys * dim);
            const KeyRun<float> run{widen_q8_0(cache, t.layer, t.slot, Part::Keys, t.kv_head, visible, dim,
                                               scratch.widened(worker, 0, n)),
                                    widen_q8_0(cache, t.layer, t.slot, Part::Values, t.kv_head, visible, dim,
                                               scratch.widened(worker, 1, n)),
                                    visible.n_keys};
            return attend_group(std::span<const float>(t.q), dim, std::span(&run, 1), dim, scale, scores, t.out, t.sinks);
        }
    }
}

}  // namespace

AttentionScratch::AttentionScratch(const KvCache& cache, const AttentionHeads& heads, int workers)
    : scores_floats_(static_cast<std::size_t>(cache.n_ctx() * (heads.n_head / heads.n_head_kv))),
      widened_floats_(cache.type() == KvType::Q8_0 ? static_cast<std::size_t>(cache.n_ctx() * heads.head_dim) : 0),
      per_worker_(scores_floats_ + 2 * widened_floats_),
      workers_(workers),
      buffer_(per_worker_ * static_cast<std::size_t>(workers)) {}

void attention(const KvCache& cache, std::int64_t layer, std::span<const BatchRow> rows, const AttentionHeads& h,
               std::span<float> q, std::span<float> out, AttentionScratch& scratch, std::span<const float> sinks) {
    check(sinks.empty() || static_cast<std::int64_t>(sinks.size()) == h.n_head, "attention: {} sinks for {} heads",
          sinks.size(), h.n_head);
    const std::int64_t width = h.n_head * h.head_dim;
    const std::int64_t group = h.n_head / h.n_head_kv;  // query heads g*group .. g*group+group-1 read kv head g
    const std::int64_t n_tasks = static_cast<std::int64_t>(rows.size()) * h.n_head_kv;
    const int workers = static_cast<int>(std::min<std::int64_t>(scratch.workers(), n_tasks));
    const auto dim = static_cast<std::size_t>(h.head_dim);
    const auto group_values = static_cast<std::size_t>(group * h.head_dim);
    const float scale = h.scale > 0.0f ? h.scale : 1.0f / std::sqrt(static_cast<float>(h.head_dim));
    // Each worker owns a scratch area and takes every workers-th (row, kv head): later rows
    // see more keys, so interleaving keeps the workers' shares even.
    ThreadPool::global().run(workers, [&](std::int64_t worker) {
        for (std::int64_t task = worker; task < n_tasks; task += workers) {
            const BatchRow& row = rows[static_cast<std::size_t>(task / h.n_head_kv)];
            const std::int64_t kv_head = task % h.n_head_kv;
            const auto at = static_cast<std::size_t>((task / h.n_head_kv) * width + kv_head * group * h.head_dim);
            const std::span<const float> group_sinks =
                sinks.empty() ? sinks : sinks.subspan(static_cast<std::size_t>(kv_head * group), static_cast<std::size_t>(group));
            attend(cache, {layer, row.slot, kv_head, row.position, q.subspan(at, group_values), out.subspan(at, group_values), group_sinks},
                   dim, scale, scratch, static_cast<int>(worker));
        }
    });
}

void attention_bidirectional(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                             std::int64_t n, const AttentionHeads& h, std::span<float> out) {
    const std::int64_t width = h.n_head * h.head_dim, kv_width = h.n_head_kv * h.head_dim;
    const std::int64_t group = h.n_head / h.n_head_kv;
    const auto dim = static_cast<std::size_t>(h.head_dim);
    const auto group_values = static_cast<std::size_t>(group * h.head_dim);
    const std::int64_t n_tasks = n * h.n_head_kv;  // (query row, kv head)
    const int workers = static_cast<int>(std::min<std::int64_t>(ThreadPool::global().size(), n_tasks));
    const auto scores_per_worker = static_cast<std::size_t>(group * n);
    std::vector<float> scores(scores_per_worker * static_cast<std::size_t>(workers));
    ThreadPool::global().run(workers, [&](std::int64_t worker) {
        const auto own = std::span(scores).subspan(static_cast<std::size_t>(worker) * scores_per_worker, scores_per_worker);
        for (std::int64_t task = worker; task < n_tasks; task += workers) {
            const std::int64_t row = task / h.n_head_kv, kv_head = task % h.n_head_kv;
            const auto at = static_cast<std::size_t>(row * width + kv_head * group * h.head_dim);
            const auto head = static_cast<std::size_t>(kv_head * h.head_dim);
            // Every row's keys from this head on: kv_dot_rows reads n rows kv_width apart.
            const auto rows_from = static_cast<std::size_t>((n - 1) * kv_width) + dim;
            const KeyRun<float> run{k.subspan(head, rows_from), v.subspan(head, rows_from), static_cast<std::size_t>(n)};
            attend_group(q.subspan(at, group_values), dim, std::span(&run, 1), static_cast<std::size_t>(kv_width),
                         1.0f / std::sqrt(static_cast<float>(dim)), own, out.subspan(at, group_values), {});
        }
    });
}

}  // namespace forge::infer
