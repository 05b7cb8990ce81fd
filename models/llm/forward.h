// The transformer forward pass of a llama-family model (llama, qwen2, qwen3, qwen3moe, smollm3, phi3, gpt-oss, gemma3) as a stateless
// function of a batch and a KV cache: rows {token, position, slot, wants logits} in, logits
// out for the rows that want them (or, for an embedding model, their final-norm hidden states). Sequence state lives only in the cache (what each slot
// holds); this object holds the activation buffers for up to max_rows rows, allocated once,
// so a forward pass allocates nothing. Rows of different slots share every matrix product;
// each row's logits are the same bits whatever else is in the batch (core/infer/linear.h).
//
// Built on the inference front-end (core/infer/): linear, attention, row ops, KV cache.
#pragma once

#include "core/infer/attention.h"
#include "core/infer/batch.h"
#include "core/infer/kv_cache.h"
#include "core/infer/linear.h"
#include "models/llm/lora/lora_runtime.h"
#include "models/llm/model.h"
#include "models/llm/moe_feed_forward.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace forge::llm {

// A KV cache shaped for `model`: n_slots sequences of n_ctx positions each. A sliding-window
// layer keeps a ring of its window + max_rows_per_pass - 1 rows per slot (core/infer/kv_cache.h):
// forward passes of up to max_rows_per_pass rows of one slot, and rollbacks of up to that
// many positions. The default keeps every position of every layer.
infer::KvCache make_kv_cache(const Model& model, std::int64_t n_slots, std::int64_t n_ctx, infer::KvType type,
                             std::int64_t max_rows_per_pass = 0);

class Forward {
public:
    // Buffers for batches of up to max_rows rows against caches shaped like `cache`.
    Forward(const Model& model, std::int64_t max_rows, const infer::KvCache& cache);
    Forward(const Forward&) = delete;  // the activation views point into its own buffer
    Forward& operator=(const Forward&) = delete;
    Forward(Forward&&) noexcept = default;

    std::int64_t max_rows() const { return max_rows_; }

    // The model's LoRA adapters' scales for the sequence in `slot`, one per adapter (the
    // adapters' default scales until set). Nothing to set when the model has none.
    void set_lora_scales(std::int64_t slot, std::span<const float> scales) { lora_.set_slot_scales(slot, scales); }
    std::span<const float> lora_scales(std::int64_t slot) const { return lora_.slot_scales(slot); }

    // Run `rows` (at most max_rows), writing their keys and values into `cache`, and write
    // the logits of the rows that want them, in batch order, into `logits`
    // ([rows wanting logits, n_vocab]). Each slot's rows must continue where that slot ends
    // (positions length, length + 1, ...). Throws before touching the cache for a token out
    // of range, a position past the context or a gap.
    void run(std::span<const infer::BatchRow> rows, infer::KvCache& cache, std::span<float> logits);
    // The same pass without the head: the hidden states after the final norm of the rows that
    // want output, in batch order, into `hidden` ([rows wanting output, n_embd]). What an
    // embedding model pools (models/llm/llama_embedding_model.h).
    void run_hidden(std::span<const infer::BatchRow> rows, infer::KvCache& cache, std::span<float> hidden);

private:
    // Checks, then embedding and every block; the cache holds the rows afterwards.
    void run_blocks(std::span<const infer::BatchRow> rows, infer::KvCache& cache);
    void check_rows(std::span<const infer::BatchRow> rows, const infer::KvCache& cache) const;
    void check_outputs(std::span<const infer::BatchRow> rows, std::size_t values, std::int64_t width) const;
    void embed(std::span<const infer::BatchRow> rows);
    void attention_block(std::int64_t layer, std::span<const infer::BatchRow> rows, infer::KvCache& cache);
    void feed_forward_block(std::int64_t layer, std::int64_t n);
    // x += proj for n rows (gemma3: rmsnorm(proj) * post_norm).
    void add_to_residual(std::int64_t n, const Tensor& post_norm);
    // rmsnorm(x) of the rows that want output, gathered to the front of `out`; returns how many.
    std::int64_t final_norm(std::span<const infer::BatchRow> rows, std::span<float> out);
    void output_head(std::span<const infer::BatchRow> rows, std::span<float> logits);

    const Model& model_;
    const Hparams& h_;
    std::int64_t max_rows_;
    infer::ActivationScratch act_scratch_;
    infer::AttentionScratch attention_scratch_;
    // Activations, [max_rows, width] each.
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
    lora::LoraRuntime lora_;                     // the model's adapters, if any, per slot
    std::optional<MoeFeedForward> moe_;          // qwen3moe, gpt-oss: the experts' feed-forward instead
    std::vector<std::int64_t> positions_;        // [max_rows], this batch's positions
    std::vector<float> rope_cos_, rope_sin_;     // [max_rows, n_rot / 2], their angles
    std::vector<float> local_cos_, local_sin_;   // ... in the sliding-window layers' RoPE (gemma3)
    std::vector<std::byte> embed_row_;           // one token_embd row, read from the interleaved head
    std::vector<std::int64_t> slot_ends_;        // per slot: where this batch's next row must be
    std::int64_t cache_ctx_;                     // the attention scratch holds this many positions
    infer::KvType cache_type_;                   // ... of this storage (q8_0 widens into it)
};

}  // namespace forge::llm
