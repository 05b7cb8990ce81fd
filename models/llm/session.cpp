#include "models/llm/session.h"

#include "models/llm/attention.h"

#include "core/error.h"
#include "core/quant/quantize.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/binary.h"
#include "kernels/norm.h"
#include "kernels/rope.h"
#include "kernels/unary.h"

#include <algorithm>
#include <initializer_list>
#include <utility>

namespace forge::llm {

namespace {

std::size_t sz(std::int64_t n) { return static_cast<std::size_t>(n); }

// Row r of a row-major buffer of `width` values per row.
std::span<float> row(std::vector<float>& buffer, std::int64_t r, std::int64_t width) {
    return std::span(buffer).subspan(sz(r * width), sz(width));
}

// y = rmsnorm(x) * weight for each of `rows` rows of `width` values (in place when x is y).
void rmsnorm_rows(std::span<const float> x, std::span<float> y, std::int64_t rows, std::int64_t width,
                  const Tensor& weight, float eps) {
    const std::span<const float> w = weight.span<float>();
    ThreadPool::global().parallel_for(rows, 16, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t r = begin; r < end; ++r) {
            kernels::active::rmsnorm(x.subspan(sz(r * width), sz(width)), w, eps, y.subspan(sz(r * width), sz(width)));
        }
    });
}

void add_into(std::span<float> y, std::span<const float> x) {
    kernels::active::binary(kernels::BinaryOp::Add, y, x, y);
}

}  // namespace

Session::Session(const Model& model, const SessionOptions& options)
    : model_(model),
      h_(model.hparams()),
      n_batch_(std::max<std::int64_t>(1, std::min(options.n_batch, options.n_ctx))),
      cache_(h_.n_layer, options.n_ctx, h_.n_head_kv, h_.head_dim, options.kv_type),
      act_scratch_(n_batch_, std::max({h_.n_embd, h_.q_width(), h_.n_ff})),
      attention_scratch_(options.n_ctx, h_.group_size(), ThreadPool::global().size()) {
    const auto batch = [&](std::int64_t width) { return std::vector<float>(sz(n_batch_ * width)); };
    x_ = batch(h_.n_embd);
    xn_ = batch(h_.n_embd);
    proj_ = batch(h_.n_embd);
    const std::int64_t attention_width = 2 * h_.q_width() + 2 * h_.kv_width(), ffn_width = 2 * h_.n_ff;
    block_buffer_ = batch(std::max(attention_width, ffn_width));
    // Carve consecutive [n_batch, width] views out of the block buffer.
    const auto views = [&](std::initializer_list<std::pair<std::span<float>*, std::int64_t>> layout) {
        std::size_t at = 0;
        for (auto [view, width] : layout) {
            *view = std::span(block_buffer_).subspan(at, sz(n_batch_ * width));
            at += view->size();
        }
    };
    views({{&q_, h_.q_width()}, {&k_, h_.kv_width()}, {&v_, h_.kv_width()}, {&attn_, h_.q_width()}});
    views({{&gate_, h_.n_ff}, {&up_, h_.n_ff}});
    rope_cos_ = batch(h_.rope.n_rot / 2);
    rope_sin_ = batch(h_.rope.n_rot / 2);
    embed_row_.resize(dtype_bytes(model.weights().token_embd.dtype(), sz(h_.n_embd)));
    logits_.resize(sz(h_.n_vocab));
}

void Session::check_tokens(std::span<const std::int32_t> tokens) const {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        check(tokens[i] >= 0 && tokens[i] < h_.n_vocab, "token id {} at position {} is out of range [0, {})", tokens[i],
              i, h_.n_vocab);
    }
    const auto n = static_cast<std::int64_t>(tokens.size());
    check(n_past_ + n <= n_ctx(), "the context is full: {} tokens already in it + {} new > --ctx {}", n_past_, n, n_ctx());
}

std::span<const float> Session::eval(std::span<const std::int32_t> tokens, std::span<float> all_logits) {
    check(!tokens.empty(), "eval: no tokens");
    check(all_logits.empty() || all_logits.size() == tokens.size() * sz(h_.n_vocab),
          "eval: {} logits do not hold {} rows of {}", all_logits.size(), tokens.size(), h_.n_vocab);
    check_tokens(tokens);
    for (std::size_t start = 0; start < tokens.size(); start += sz(n_batch_)) {
        const auto chunk = tokens.subspan(start, std::min(sz(n_batch_), tokens.size() - start));
        forward(chunk, all_logits.empty() ? all_logits : all_logits.subspan(start * sz(h_.n_vocab), chunk.size() * sz(h_.n_vocab)));
    }
    if (!all_logits.empty()) {
        const auto last = all_logits.last(sz(h_.n_vocab));
        std::copy(last.begin(), last.end(), logits_.begin());
    }
    return logits_;
}

// The architecture: embedding -> n_layer x (attention, feed-forward) -> norm -> head.
void Session::forward(std::span<const std::int32_t> tokens, std::span<float> logits_rows) {
    const auto n = static_cast<std::int64_t>(tokens.size());
    embed(tokens);
    rope_angles(n);
    for (std::int64_t layer = 0; layer < h_.n_layer; ++layer) {
        attention_block(layer, n);
        feed_forward_block(layer, n);
    }
    n_past_ += n;
    if (logits_rows.empty()) {
        output_head(n - 1, 1, logits_);
    } else {
        output_head(0, n, logits_rows);
    }
}

// A tied head's table was interleaved for the output matmul and its file pages released;
// reading rows from the interleaved copy keeps them released (each scattered read of the
// mapping would fault a neighbourhood of pages back in).
void Session::embed(std::span<const std::int32_t> tokens) {
    const ModelWeights& weights = model_.weights();
    const Tensor& table = weights.token_embd;
    const std::size_t row_bytes = dtype_bytes(table.dtype(), sz(h_.n_embd));
    const InterleavedWeights* packed = weights.tied_output ? weights.output.interleaved.get() : nullptr;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        std::span<const std::byte> bytes(table.raw_data() + sz(tokens[i]) * row_bytes, row_bytes);
        if (packed) {
            packed->copy_row(tokens[i], embed_row_);
            bytes = embed_row_;
        }
        quant::dequantize_bytes(table.dtype(), bytes, row(x_, static_cast<std::int64_t>(i), h_.n_embd));
    }
}

// x += Wo · attention(rope(Wq·xn), rope(Wk·xn), Wv·xn), with xn = rmsnorm(x).
void Session::attention_block(std::int64_t layer, std::int64_t n) {
    const BlockWeights& w = model_.weights().blocks[sz(layer)];
    rmsnorm_rows(x_, xn_, n, h_.n_embd, w.attn_norm, h_.rms_eps);
    const LinearOutput qkv[] = {{&w.wq, q_}, {&w.wk, k_}, {&w.wv, v_}};
    linear_shared_input(qkv, xn_, n, act_scratch_);
    if (h_.qk_norm) {  // qwen3 normalizes every head of q and k on its own
        rmsnorm_rows(q_, q_, n * h_.n_head, h_.head_dim, w.q_norm, h_.rms_eps);
        rmsnorm_rows(k_, k_, n * h_.n_head_kv, h_.head_dim, w.k_norm, h_.rms_eps);
    }
    rotate(q_, n, h_.n_head);
    rotate(k_, n, h_.n_head_kv);
    cache_.store(layer, n_past_, n, k_, v_);
    attention(cache_, layer, {n, n_past_, h_.n_head, h_.n_head_kv, h_.head_dim}, q_, attn_, attention_scratch_);
    linear(w.wo, attn_, n, proj_, act_scratch_);
    add_into(std::span(x_).first(sz(n * h_.n_embd)), std::span(proj_).first(sz(n * h_.n_embd)));
}

// x += W_down · (silu(W_gate · xn) * (W_up · xn)), with xn = rmsnorm(x): SwiGLU.
void Session::feed_forward_block(std::int64_t layer, std::int64_t n) {
    const BlockWeights& w = model_.weights().blocks[sz(layer)];
    rmsnorm_rows(x_, xn_, n, h_.n_embd, w.ffn_norm, h_.rms_eps);
    const LinearOutput gate_up[] = {{&w.ffn_gate, gate_}, {&w.ffn_up, up_}};
    linear_shared_input(gate_up, xn_, n, act_scratch_);
    ThreadPool::global().parallel_for(n, 8, [&](std::int64_t begin, std::int64_t end) {
        const auto span = std::span(gate_).subspan(sz(begin * h_.n_ff), sz((end - begin) * h_.n_ff));
        const auto up = std::span(up_).subspan(sz(begin * h_.n_ff), span.size());
        kernels::active::unary(kernels::UnaryOp::Silu, span, span);
        kernels::active::binary(kernels::BinaryOp::Mul, span, up, span);
    });
    linear(w.ffn_down, gate_, n, proj_, act_scratch_);
    add_into(std::span(x_).first(sz(n * h_.n_embd)), std::span(proj_).first(sz(n * h_.n_embd)));
}

// logits = W_out · rmsnorm(x) for `rows` rows of the batch starting at `first_row`.
void Session::output_head(std::int64_t first_row, std::int64_t rows, std::span<float> logits) {
    const auto x = std::span(x_).subspan(sz(first_row * h_.n_embd), sz(rows * h_.n_embd));
    const auto xn = std::span(xn_).first(x.size());
    rmsnorm_rows(x, xn, rows, h_.n_embd, model_.weights().output_norm, h_.rms_eps);
    linear(model_.weights().output, xn, rows, logits, act_scratch_);
}

// The rotation angles of the batch's positions n_past_ .. n_past_ + n - 1, once per forward
// pass: every layer's q and k use the same ones (computing them takes double-precision
// sin/cos per pair, more work than the rotations themselves).
void Session::rope_angles(std::int64_t n) {
    const std::int64_t half = h_.rope.n_rot / 2;
    const kernels::RopeFrequencies frequencies = h_.rope.frequencies(model_.weights().rope_freq_divisors());
    ThreadPool::global().parallel_for(n, 16, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
            kernels::active::rope_angles(static_cast<double>(n_past_ + i), frequencies, row(rope_cos_, i, half),
                                         row(rope_sin_, i, half));
        }
    });
}

// RoPE on `n_heads` heads of each token, token i at position n_past_ + i.
void Session::rotate(std::span<float> rows, std::int64_t n, std::int64_t n_heads) {
    const std::int64_t half = h_.rope.n_rot / 2;
    const std::int64_t width = n_heads * h_.head_dim;
    ThreadPool::global().parallel_for(n, 16, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
            const auto heads = rows.subspan(sz(i * width), sz(width));
            kernels::active::rope(heads, h_.head_dim, h_.rope.mode, {row(rope_cos_, i, half), row(rope_sin_, i, half)},
                                  heads);
        }
    });
}

}  // namespace forge::llm
