// One conversation with a model: its KV cache and every activation buffer, allocated once for
// the whole context. eval() runs the transformer over new tokens — the prompt in batches
// (matrix-matrix), then one token at a time (matrix-vector) — and returns logits. After the
// first token of a given batch size, evaluating allocates nothing.
#pragma once

#include "core/error.h"
#include "models/llm/attention.h"
#include "models/llm/kv_cache.h"
#include "models/llm/linear.h"
#include "models/llm/model.h"

#include <cstdint>
#include <span>
#include <vector>

namespace forge::llm {

struct SessionOptions {
    std::int64_t n_ctx = 4096;    // positions the KV cache holds
    std::int64_t n_batch = 512;   // prompt tokens per forward pass
    KvType kv_type = KvType::F16;
};

class Session {
public:
    Session(const Model& model, const SessionOptions& options);
    Session(const Session&) = delete;  // the activation views point into its own buffer
    Session& operator=(const Session&) = delete;
    Session(Session&&) noexcept = default;

    // Append `tokens` to the conversation. Returns the logits after the last one ([n_vocab],
    // valid until the next call). When `all_logits` is not empty it receives every position's
    // logits, [tokens.size(), n_vocab]. Throws, leaving the session unchanged, for an id out of
    // range or when the tokens do not fit in the context.
    std::span<const float> eval(std::span<const std::int32_t> tokens, std::span<float> all_logits = {});

    std::int64_t n_past() const { return n_past_; }
    std::int64_t n_ctx() const { return cache_.n_ctx(); }
    void reset() { n_past_ = 0; }  // forget the conversation; the cache is overwritten
    // Keep only the first `n` positions (a shared prefix with the next prompt).
    void truncate(std::int64_t n) {
        check(n >= 0 && n <= n_past_, "truncate: {} is not within the {} cached positions", n, n_past_);
        n_past_ = n;
    }
    const KvCache& cache() const { return cache_; }

private:
    // One forward pass over at most n_batch tokens at positions n_past_ ...
    void forward(std::span<const std::int32_t> tokens, std::span<float> logits_rows);
    void embed(std::span<const std::int32_t> tokens);
    void attention_block(std::int64_t layer, std::int64_t n_tokens);
    void feed_forward_block(std::int64_t layer, std::int64_t n_tokens);
    void output_head(std::int64_t first_row, std::int64_t rows, std::span<float> logits);
    void rope_angles(std::int64_t n_tokens);
    void rotate(std::span<float> rows, std::int64_t n_tokens, std::int64_t n_heads);
    void check_tokens(std::span<const std::int32_t> tokens) const;

    const Model& model_;
    const Hparams& h_;
    std::int64_t n_batch_;
    std::int64_t n_past_ = 0;
    KvCache cache_;
    ActivationScratch act_scratch_;
    AttentionScratch attention_scratch_;
    // Activations, [n_batch, width] each.
    std::vector<float> x_;       // the residual stream
    std::vector<float> xn_;      // x normalized
    std::vector<float> proj_;    // a projection back to n_embd, before it joins the residual
    // q, k, v and the attention output live only inside the attention block, gate and up only
    // inside the feed-forward block: the two sets are views of one buffer (less resident
    // memory, as much as 24 KiB per batch row for a Qwen3-0.6B shape).
    std::vector<float> block_buffer_;
    std::span<float> q_, k_, v_;
    std::span<float> attn_;      // attention output, before the output projection
    std::span<float> gate_, up_;
    std::vector<float> rope_cos_, rope_sin_;  // [n_batch, n_rot / 2], this batch's positions
    std::vector<std::byte> embed_row_;  // one token_embd row, when it is read from the interleaved head
    std::vector<float> logits_;  // [n_vocab], the last position
};

}  // namespace forge::llm
