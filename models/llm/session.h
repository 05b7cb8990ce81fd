// One conversation with a model: the one-slot convenience over the stateless forward pass
// (models/llm/forward.h). It owns a one-slot KV cache and the forward's buffers, allocated
// once for the whole context. eval() runs the transformer over new tokens — the prompt in
// batches (matrix-matrix), then one token at a time — and returns logits. After the first
// token of a given batch size, evaluating allocates nothing. Many sequences at once: the
// scheduler (models/llm/scheduler.h).
#pragma once

#include "core/error.h"
#include "core/infer/batch.h"
#include "core/infer/kv_cache.h"
#include "models/llm/forward.h"
#include "models/llm/model.h"

#include <cstdint>
#include <span>
#include <vector>

namespace forge::llm {

using infer::KvType;
using infer::kv_type_from_name;

struct SessionOptions {
    std::int64_t n_ctx = 4096;    // positions the KV cache holds
    std::int64_t n_batch = 512;   // prompt tokens per forward pass
    KvType kv_type = KvType::F16;
};

class Session {
public:
    Session(const Model& model, const SessionOptions& options);

    // Append `tokens` to the conversation. Returns the logits after the last one ([n_vocab],
    // valid until the next call). When `all_logits` is not empty it receives every position's
    // logits, [tokens.size(), n_vocab]. Throws, leaving the session unchanged, for an id out of
    // range or when the tokens do not fit in the context.
    std::span<const float> eval(std::span<const std::int32_t> tokens, std::span<float> all_logits = {});

    std::int64_t n_past() const { return cache_.length(0); }
    std::int64_t n_ctx() const { return cache_.n_ctx(); }
    void reset() { cache_.truncate(0, 0); }  // forget the conversation; the cache is overwritten
    // Keep only the first `n` positions (a shared prefix with the next prompt).
    void truncate(std::int64_t n) { cache_.truncate(0, n); }
    // The shortest length other than 0 truncate() accepts (a sliding-window ring keeps only the
    // latest positions: KvCache::min_truncation).
    std::int64_t min_truncation() const { return cache_.min_truncation(0); }
    const infer::KvCache& cache() const { return cache_; }

private:
    void check_tokens(std::span<const std::int32_t> tokens) const;

    const Model& model_;
    std::int64_t n_batch_;
    infer::KvCache cache_;
    Forward forward_;
    infer::Batch batch_;
    std::vector<float> logits_;  // [n_vocab], the last position
};

}  // namespace forge::llm
