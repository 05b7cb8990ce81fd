// Causal multi-head attention over the slotted KV cache (core/infer/kv_cache.h) for a batch of
// query rows that each carry their own (slot, position): row i sees positions 0 .. position
// of its slot, or in a sliding-window layer the window ending at position (grouped-query:
// query head h reads kv head h / (n_head / n_head_kv)).
#pragma once

#include "core/infer/batch.h"
#include "core/infer/kv_cache.h"

#include <cstdint>
#include <span>
#include <vector>

namespace forge::infer {

struct AttentionHeads {
    std::int64_t n_head;
    std::int64_t n_head_kv;
    std::int64_t head_dim;
    float scale = 0.0f;  // what q·k is multiplied by before the softmax; 0: 1 / sqrt(head_dim)
};

// Per worker: room for the scores of one kv head's group of queries over a whole slot (and,
// for a Q8_0 cache, that slot's keys and values of one head widened to f32), made once so that
// attention never allocates.
class AttentionScratch {
public:
    AttentionScratch(const KvCache& cache, const AttentionHeads& heads, int workers);
    int workers() const { return workers_; }
    std::span<float> scores(int worker, std::int64_t n) { return area(worker).subspan(0, static_cast<std::size_t>(n)); }
    // Widened keys (which 0) or values (1) of up to n_ctx positions of one head.
    std::span<float> widened(int worker, int which, std::int64_t n) {
        return area(worker).subspan(scores_floats_ + static_cast<std::size_t>(which) * widened_floats_,
                                    static_cast<std::size_t>(n));
    }

private:
    std::span<float> area(int worker) {
        return std::span(buffer_).subspan(static_cast<std::size_t>(worker) * per_worker_, per_worker_);
    }
    std::size_t scores_floats_, widened_floats_, per_worker_;
    int workers_;
    std::vector<float> buffer_;
};

// q and out are [rows.size(), n_head * head_dim]; the cache already holds every row's key and
// value. Query row i sees every cached position <= rows[i].position of slot rows[i].slot
// (in a sliding-window layer, the cache's window(layer) latest of them: keys at p with
// position - p < window, llama.cpp's LLAMA_SWA_TYPE_STANDARD), weighted by
// softmax(scale * q·k). With an f16 cache, q is rounded to f16 in place
// first, with a Q8_0 cache through Q8_0, as llama.cpp does. sinks (gpt-oss; empty: none) holds
// one logit per query head that joins that head's softmax as if it were one more key's score
// (unscaled) but has no value: the weights then sum to less than 1 (ggml_soft_max_add_sinks).
void attention(const KvCache& cache, std::int64_t layer, std::span<const BatchRow> rows, const AttentionHeads& heads,
               std::span<float> q, std::span<float> out, AttentionScratch& scratch, std::span<const float> sinks = {});

// Bidirectional (encoder) attention over one whole input of n rows, no cache: q and out are
// [n, n_head * head_dim], k and v [n, n_head_kv * head_dim], all f32; every query row sees every
// row, weighted by softmax(q·k / sqrt(head_dim)). The same per-group math as attention() above.
void attention_bidirectional(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                             std::int64_t n, const AttentionHeads& heads, std::span<float> out);

}  // namespace forge::infer
