#include "models/llm/forward.h"

#include "core/checked_math.h"
#include "core/error.h"
#include "core/infer/activation.h"
#include "core/infer/row_ops.h"
#include "core/quant/quantize.h"
#include "core/thread_pool.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <utility>

namespace forge::llm {

namespace {

using infer::BatchRow;

}  // namespace

infer::KvCache make_kv_cache(const Model& model, std::int64_t n_slots, std::int64_t n_ctx, infer::KvType type,
                             std::int64_t max_rows_per_pass) {
    const Hparams& h = model.hparams();
    infer::SlidingLayers sliding;
    if (h.swa.window > 0) {
        for (std::int64_t layer = 0; layer < h.n_layer; ++layer) sliding.windows.push_back(h.window(layer));
        sliding.slack = (max_rows_per_pass > 0 ? max_rows_per_pass : n_ctx) - 1;
    }
    return infer::KvCache({h.n_layer, n_slots, n_ctx, h.n_head_kv, h.head_dim}, type, sliding);
}

Forward::Forward(const Model& model, std::int64_t max_rows, const infer::KvCache& cache)
    : model_(model),
      h_(model.hparams()),
      max_rows_(std::max<std::int64_t>(1, max_rows)),
      act_scratch_(MoeFeedForward::activation_rows(h_, max_rows_), std::max({h_.n_embd, h_.q_width(), h_.n_ff, h_.moe.n_ff_exp}),
                   MoeFeedForward::products_per_pass(h_)),
      attention_scratch_(cache, {h_.n_head, h_.n_head_kv, h_.head_dim}, ThreadPool::global().size()),
      lora_(model.lora(), max_rows_, cache.n_slots(), std::max({h_.n_embd, h_.q_width(), h_.n_ff})) {
    const auto batch = [&](std::int64_t width) { return std::vector<float>(sz(max_rows_ * width)); };
    x_ = batch(h_.n_embd);
    xn_ = batch(h_.n_embd);
    proj_ = batch(h_.n_embd);
    // A mixture-of-experts model's feed-forward keeps its own buffers (moe_feed_forward.h).
    const std::int64_t dense_ff = h_.has_experts() ? 0 : h_.n_ff;
    const std::int64_t attention_width = 2 * h_.q_width() + 2 * h_.kv_width(), ffn_width = 2 * dense_ff;
    block_buffer_ = batch(std::max(attention_width, ffn_width));
    // Carve consecutive [max_rows, width] views out of the block buffer.
    const auto views = [&](std::initializer_list<std::pair<std::span<float>*, std::int64_t>> layout) {
        std::size_t at = 0;
        for (auto [view, width] : layout) {
            *view = std::span(block_buffer_).subspan(at, sz(max_rows_ * width));
            at += view->size();
        }
    };
    views({{&q_, h_.q_width()}, {&k_, h_.kv_width()}, {&v_, h_.kv_width()}, {&attn_, h_.q_width()}});
    views({{&gate_, dense_ff}, {&up_, dense_ff}});
    if (h_.has_experts()) moe_.emplace(h_, max_rows_);
    positions_.resize(sz(max_rows_));
    rope_cos_ = batch(h_.rope.n_rot / 2);
    rope_sin_ = batch(h_.rope.n_rot / 2);
    if (h_.swa.window > 0) {
        local_cos_ = batch(h_.rope.n_rot / 2);
        local_sin_ = batch(h_.rope.n_rot / 2);
    }
    embed_row_.resize(dtype_bytes(model.weights().token_embd.dtype(), sz(h_.n_embd)));
    slot_ends_.resize(sz(cache.n_slots()));
    cache_ctx_ = cache.n_ctx();
    cache_type_ = cache.type();
}

void Forward::check_rows(std::span<const BatchRow> rows, const infer::KvCache& cache) const {
    check(!rows.empty(), "forward: no rows");
    check(static_cast<std::int64_t>(rows.size()) <= max_rows_, "forward: {} rows, more than the {} it was made for",
          rows.size(), max_rows_);
    check(sz(cache.n_slots()) <= slot_ends_.size() && cache.n_ctx() <= cache_ctx_ && cache.type() == cache_type_,
          "forward: made for caches of up to {} slots of {} positions of one type, not {} slots of {}",
          slot_ends_.size(), cache_ctx_, cache.n_slots(), cache.n_ctx());
}

// `values` must hold one row of `width` for each row that wants output (logits or hidden states).
void Forward::check_outputs(std::span<const BatchRow> rows, std::size_t values, std::int64_t width) const {
    std::size_t wanted = 0;
    for (const BatchRow& r : rows) wanted += r.wants_logits ? 1 : 0;
    check(values == wanted * sz(width), "forward: {} outputs do not hold {} rows of {}", values, wanted, width);
}

void Forward::run(std::span<const BatchRow> rows, infer::KvCache& cache, std::span<float> logits) {
    check_outputs(rows, logits.size(), h_.n_vocab);
    run_blocks(rows, cache);
    if (!logits.empty()) output_head(rows, logits);
}

void Forward::run_hidden(std::span<const BatchRow> rows, infer::KvCache& cache, std::span<float> hidden) {
    check_outputs(rows, hidden.size(), h_.n_embd);
    run_blocks(rows, cache);
    final_norm(rows, hidden);
}

void Forward::run_blocks(std::span<const BatchRow> rows, infer::KvCache& cache) {
    check_rows(rows, cache);
    for (std::int64_t s = 0; s < cache.n_slots(); ++s) slot_ends_[sz(s)] = cache.length(s);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const BatchRow& r = rows[i];
        check(r.token >= 0 && r.token < h_.n_vocab, "token id {} at row {} is out of range [0, {})", r.token, i,
              h_.n_vocab);
        check(r.slot >= 0 && r.slot < cache.n_slots(), "row {}: slot {} is not one of the cache's {}", i, r.slot,
              cache.n_slots());
        check(r.position < cache.n_ctx(), "the context is full: position {} does not fit in a context of {}",
              r.position, cache.n_ctx());
        check(r.position == slot_ends_[sz(r.slot)], "row {}: slot {} continues at position {}, not {}", i, r.slot,
              slot_ends_[sz(r.slot)], r.position);
        ++slot_ends_[sz(r.slot)];
        positions_[i] = r.position;
    }
    for (std::int64_t s = 0; s < cache.n_slots(); ++s) {
        check(slot_ends_[sz(s)] - cache.length(s) <= cache.max_rows_per_pass(),
              "forward: {} rows of slot {} in one pass, more than its sliding-window ring allows ({})",
              slot_ends_[sz(s)] - cache.length(s), s, cache.max_rows_per_pass());
    }
    // The architecture: embedding -> n_layer x (attention, feed-forward) -> norm -> head
    // (the last two in output_head, or final_norm alone for hidden states).
    const auto n = static_cast<std::int64_t>(rows.size());
    lora_.begin_batch(rows);
    embed(rows);
    // The divisors depend on the context per sequence (LongRoPE), as in llama.cpp.
    const auto divisors = model_.weights().rope_freq_divisors(cache.n_ctx(), h_.rope.n_ctx_orig);
    infer::rope_angles_rows(std::span(positions_).first(rows.size()), h_.rope.frequencies(divisors),
                            h_.rope.n_rot / 2, rope_cos_, rope_sin_);
    if (h_.swa.window > 0) {
        infer::rope_angles_rows(std::span(positions_).first(rows.size()), h_.swa.rope.frequencies(divisors),
                                h_.rope.n_rot / 2, local_cos_, local_sin_);
    }
    for (std::int64_t layer = 0; layer < h_.n_layer; ++layer) {
        attention_block(layer, rows, cache);
        feed_forward_block(layer, n);
    }
    for (const BatchRow& r : rows) cache.commit(r.slot, r.position);
}

// A tied head's table was interleaved for the output matmul and its file pages released;
// reading rows from the interleaved copy keeps them released (each scattered read of the
// mapping would fault a neighbourhood of pages back in).
void Forward::embed(std::span<const BatchRow> rows) {
    const ModelWeights& weights = model_.weights();
    const Tensor& table = weights.token_embd;
    const std::size_t row_bytes = dtype_bytes(table.dtype(), sz(h_.n_embd));
    const infer::InterleavedWeights* packed = weights.tied_output ? weights.output.interleaved.get() : nullptr;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        std::span<const std::byte> bytes(table.raw_data() + sz(rows[i].token) * row_bytes, row_bytes);
        if (packed) {
            packed->copy_row(rows[i].token, embed_row_);
            bytes = embed_row_;
        }
        quant::dequantize_bytes(table.dtype(), bytes, std::span(x_).subspan(i * sz(h_.n_embd), sz(h_.n_embd)));
    }
    if (h_.gemma.scale_embeddings) {  // gemma3: times sqrt(n_embd), in float as llama.cpp's sqrtf
        const float scale = std::sqrt(static_cast<float>(h_.n_embd));
        const auto x = std::span(x_).first(rows.size() * sz(h_.n_embd));
        infer::multiply_rows(x, std::span(&scale, 1), x);
    }
}

// gemma3 normalizes a block's output before it joins the residual stream.
void Forward::add_to_residual(std::int64_t n, const Tensor& post_norm) {
    const auto out = std::span(proj_).first(sz(n * h_.n_embd));
    if (h_.gemma.post_norms) infer::rmsnorm_rows(out, out, n, h_.n_embd, post_norm.span<float>(), h_.rms_eps);
    infer::add_rows(std::span(x_).first(sz(n * h_.n_embd)), out);
}

// x += Wo · attention(rope(Wq·xn), rope(Wk·xn), Wv·xn), with xn = rmsnorm(x) (gemma3: the
// output normalized, q scaled before attention, local layers with their own RoPE and window).
void Forward::attention_block(std::int64_t layer, std::span<const BatchRow> rows, infer::KvCache& cache) {
    const BlockWeights& w = model_.weights().blocks[sz(layer)];
    const auto n = static_cast<std::int64_t>(rows.size());
    infer::rmsnorm_rows(x_, xn_, n, h_.n_embd, w.attn_norm.span<float>(), h_.rms_eps);
    const infer::LinearOutput qkv[] = {{&w.wq, q_}, {&w.wk, k_}, {&w.wv, v_}};
    infer::linear_shared_input(qkv, xn_, n, act_scratch_);
    lora_.apply(layer, lora::Projection::Q, xn_, n, q_, act_scratch_);
    lora_.apply(layer, lora::Projection::K, xn_, n, k_, act_scratch_);
    lora_.apply(layer, lora::Projection::V, xn_, n, v_, act_scratch_);
    if (h_.qk_norm) {  // qwen3 normalizes every head of q and k on its own
        infer::rmsnorm_rows(q_, q_, n * h_.n_head, h_.head_dim, w.q_norm.span<float>(), h_.rms_eps);
        infer::rmsnorm_rows(k_, k_, n * h_.n_head_kv, h_.head_dim, w.k_norm.span<float>(), h_.rms_eps);
    }
    if (h_.rotates(layer)) {  // smollm3 leaves some layers without positions (NoPE)
        const std::int64_t half = h_.rope.n_rot / 2;
        const bool local = h_.sliding(layer);
        const std::span<const float> cos = local ? local_cos_ : rope_cos_, sin = local ? local_sin_ : rope_sin_;
        infer::rope_rows(q_, n, h_.n_head, h_.head_dim, h_.rope.mode, cos, sin, half);
        infer::rope_rows(k_, n, h_.n_head_kv, h_.head_dim, h_.rope.mode, cos, sin, half);
    }
    infer::AttentionHeads heads{h_.n_head, h_.n_head_kv, h_.head_dim};
    if (h_.gemma.query_scale > 0.0f) {  // llama.cpp scales q, then attends with scale 1
        const auto q = std::span(q_).first(sz(n * h_.q_width()));
        infer::multiply_rows(q, std::span(&h_.gemma.query_scale, 1), q);
        heads.scale = 1.0f;
    }
    const auto kv = sz(h_.kv_width());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        cache.store(layer, rows[i].slot, rows[i].position, k_.subspan(i * kv, kv), v_.subspan(i * kv, kv));
    }
    const std::span<const float> sinks = h_.attn_sinks ? w.attn_sinks.span<float>() : std::span<const float>();
    infer::attention(cache, layer, rows, heads, q_, attn_, attention_scratch_, sinks);
    infer::linear(w.wo, attn_, n, proj_, act_scratch_);
    lora_.apply(layer, lora::Projection::O, attn_, n, proj_, act_scratch_);
    add_to_residual(n, w.post_attention_norm);
}

// x += W_down · (silu(W_gate · xn) * (W_up · xn)), with xn = rmsnorm(x): SwiGLU (gemma3: GELU
// for silu, the output normalized); or, for a mixture of experts, x += the chosen experts'
// SwiGLU outputs, weighted.
void Forward::feed_forward_block(std::int64_t layer, std::int64_t n) {
    const BlockWeights& w = model_.weights().blocks[sz(layer)];
    infer::rmsnorm_rows(x_, xn_, n, h_.n_embd, w.ffn_norm.span<float>(), h_.rms_eps);
    if (moe_) {
        moe_->run(w, xn_, n, proj_, act_scratch_);
        infer::add_rows(std::span(x_).first(sz(n * h_.n_embd)), std::span(proj_).first(sz(n * h_.n_embd)));
        return;
    }
    const infer::LinearOutput gate_up[] = {{&w.ffn_gate, gate_}, {&w.ffn_up, up_}};
    infer::linear_shared_input(gate_up, xn_, n, act_scratch_);
    lora_.apply(layer, lora::Projection::Gate, xn_, n, gate_, act_scratch_);
    lora_.apply(layer, lora::Projection::Up, xn_, n, up_, act_scratch_);
    if (h_.gate == GateActivation::Gelu) {
        infer::geglu_rows(gate_, up_, n, h_.n_ff);
    } else {
        infer::swiglu_rows(gate_, up_, n, h_.n_ff);
    }
    infer::linear(w.ffn_down, gate_, n, proj_, act_scratch_);
    lora_.apply(layer, lora::Projection::Down, gate_, n, proj_, act_scratch_);
    add_to_residual(n, w.post_ffw_norm);
}

std::int64_t Forward::final_norm(std::span<const BatchRow> rows, std::span<float> out) {
    const auto width = sz(h_.n_embd);
    std::int64_t wanted = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (!rows[i].wants_logits) continue;
        const auto x = std::span(x_).subspan(i * width, width);
        infer::rmsnorm_rows(x, out.subspan(sz(wanted) * width, width), 1, h_.n_embd,
                            model_.weights().output_norm.span<float>(), h_.rms_eps);
        ++wanted;
    }
    return wanted;
}

// logits = W_out · rmsnorm(x) for the rows that want them, normalized into the front of xn;
// with a soft cap c (gemma3 files that set one), c · tanh(logits / c) as llama.cpp computes it.
void Forward::output_head(std::span<const BatchRow> rows, std::span<float> logits) {
    const std::int64_t wanted = final_norm(rows, xn_);
    infer::linear(model_.weights().output, std::span(xn_).first(sz(wanted) * sz(h_.n_embd)), wanted, logits, act_scratch_);
    const float cap = h_.gemma.final_logit_softcap;
    if (cap > 0.0f) {
        const float inverse = 1.0f / cap;
        infer::multiply_rows(logits, std::span(&inverse, 1), logits);
        infer::activate(infer::UnaryOp::Tanh, {}, logits);
        infer::multiply_rows(logits, std::span(&cap, 1), logits);
    }
}

}  // namespace forge::llm
