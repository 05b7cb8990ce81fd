// Causal multi-head attention of a run of new queries over the KV cache (grouped-query:
// query head h reads kv head h / (n_head / n_head_kv)).
#pragma once

#include "models/llm/kv_cache.h"

#include <cstdint>
#include <span>
#include <vector>

namespace forge::llm {

struct AttentionShape {
    std::int64_t n_tokens;   // new queries, at positions pos0 .. pos0 + n_tokens - 1
    std::int64_t pos0;
    std::int64_t n_head;
    std::int64_t n_head_kv;
    std::int64_t head_dim;
};

// Room for the scores of `queries` queries (one kv head's group) over the whole context in
// each of `slots` parallel lanes of work, made once per session so that attention never
// allocates.
class AttentionScratch {
public:
    AttentionScratch(std::int64_t n_ctx, std::int64_t queries, int slots)
        : per_slot_(static_cast<std::size_t>(n_ctx * queries)), slots_(slots), scores_(per_slot_ * static_cast<std::size_t>(slots)) {}
    int slots() const { return slots_; }
    std::span<float> scores(int slot, std::int64_t n) {
        return std::span(scores_).subspan(static_cast<std::size_t>(slot) * per_slot_, static_cast<std::size_t>(n));
    }

private:
    std::size_t per_slot_;
    int slots_;
    std::vector<float> scores_;
};

// q and out are [n_tokens, n_head * head_dim]; the cache already holds the new keys/values.
// Query i sees every cached position <= pos0 + i, weighted by softmax(q·k / sqrt(head_dim)).
// With an f16 cache, q is rounded to f16 in place first, as llama.cpp does.
void attention(const KvCache& cache, std::int64_t layer, const AttentionShape& shape, std::span<float> q,
               std::span<float> out, AttentionScratch& scratch);

}  // namespace forge::llm
