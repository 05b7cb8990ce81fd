#include "models/bert/encoder.h"

#include "core/checked_math.h"
#include "core/infer/attention.h"
#include "core/infer/linear.h"
#include "core/infer/row_ops.h"
#include "core/quant/quantize.h"

#include <algorithm>

namespace forge::bert {

std::vector<float> Encoder::forward(std::span<const std::int32_t> tokens) const {
    const std::int64_t lengths[] = {static_cast<std::int64_t>(tokens.size())};
    return forward(tokens, lengths);
}

std::vector<float> Encoder::forward(std::span<const std::int32_t> tokens, std::span<const std::int64_t> lengths) const {
    const auto n = static_cast<std::int64_t>(tokens.size());
    std::vector<float> x(sz(n * h_.n_embd));
    embed(tokens, lengths, x);
    // nomic-bert's rotary angles, one row per token (its position in its input), shared by
    // every block.
    std::vector<float> cos, sin;
    if (h_.arch == Arch::NomicBert) {
        const std::int64_t half = h_.head_dim / 2;
        std::vector<std::int64_t> positions;
        positions.reserve(sz(n));
        for (const std::int64_t length : lengths) {
            for (std::int64_t i = 0; i < length; ++i) positions.push_back(i);
        }
        cos.resize(sz(n * half));
        sin.resize(sz(n * half));
        infer::RopeFrequencies frequencies;
        frequencies.theta_base = h_.rope_base;
        infer::rope_angles_rows(positions, frequencies, half, cos, sin);
    }
    // One scratch for every matrix of the pass (it holds a packing area per thread).
    infer::ActivationScratch scratch(n, std::max(h_.n_embd, h_.n_ff));
    for (const BlockWeights& b : w_.blocks) {
        attention_block(b, lengths, x, cos, sin, scratch);
        feed_forward_block(b, n, x, scratch);
    }
    return x;
}

// x = LayerNorm(token_embd[t] + token_types[0] + position_embd[i]), i the token's position in
// its input.
void Encoder::embed(std::span<const std::int32_t> tokens, std::span<const std::int64_t> lengths, std::span<float> x) const {
    const auto e = sz(h_.n_embd);
    const Tensor& table = w_.token_embd;
    const std::size_t row_bytes = dtype_bytes(table.dtype(), e);
    const auto type_row = w_.token_types.span<float>().first(e);  // every token is "sentence A"
    std::size_t i = 0;
    for (const std::int64_t length : lengths) {
        for (std::int64_t position = 0; position < length; ++position, ++i) {
            const auto row = x.subspan(i * e, e);
            quant::dequantize_bytes(table.dtype(), {table.raw_data() + sz(tokens[i]) * row_bytes, row_bytes}, row);
            infer::add_rows(row, type_row);
            if (w_.position_embd.defined()) infer::add_rows(row, w_.position_embd.span<float>().subspan(sz(position) * e, e));
        }
    }
    const auto n = static_cast<std::int64_t>(tokens.size());
    infer::layernorm_rows(x, x, n, h_.n_embd, w_.embd_norm.weight.span<float>(), w_.embd_norm.bias.span<float>(),
                          h_.norm_eps);
}

// x = LayerNorm(x + Wo · attention(q, k, v)).
void Encoder::attention_block(const BlockWeights& b, std::span<const std::int64_t> lengths, std::span<float> x,
                              std::span<const float> cos, std::span<const float> sin, infer::ActivationScratch& scratch) const {
    const std::int64_t e = h_.n_embd;
    const auto n = static_cast<std::int64_t>(x.size()) / e;
    const auto rows = sz(n * e);
    std::vector<float> q(rows), k(rows), v(rows), attended(rows), out(rows);
    if (h_.arch == Arch::Bert) {
        const infer::LinearOutput qkv[] = {{&b.wq, q}, {&b.wk, k}, {&b.wv, v}};
        infer::linear_shared_input(qkv, x, n, scratch);
    } else {
        // One fused matrix: each token's row is [q | k | v].
        std::vector<float> fused(sz(n * 3 * e));
        infer::linear(b.wqkv, x, n, fused, scratch);
        for (std::int64_t i = 0; i < n; ++i) {
            const auto* row = fused.data() + sz(i * 3 * e);
            std::copy_n(row, e, q.data() + sz(i * e));
            std::copy_n(row + e, e, k.data() + sz(i * e));
            std::copy_n(row + 2 * e, e, v.data() + sz(i * e));
        }
        const std::int64_t half = h_.head_dim / 2;
        infer::rope_rows(q, n, h_.n_head, h_.head_dim, infer::RopeMode::Neox, cos, sin, half);
        infer::rope_rows(k, n, h_.n_head, h_.head_dim, infer::RopeMode::Neox, cos, sin, half);
    }
    // Each input attends to its own tokens only.
    std::size_t first = 0;
    for (const std::int64_t length : lengths) {
        const auto span = [&](std::vector<float>& rows) { return std::span(rows).subspan(first, sz(length * e)); };
        infer::attention_bidirectional(span(q), span(k), span(v), length, {h_.n_head, h_.n_head, h_.head_dim}, span(attended));
        first += sz(length * e);
    }
    infer::linear(b.wo, attended, n, out, scratch);
    infer::add_rows(x, out);
    infer::layernorm_rows(x, x, n, e, b.attn_out_norm.weight.span<float>(), b.attn_out_norm.bias.span<float>(),
                          h_.norm_eps);
}

// x = LayerNorm(x + FFN(x)).
void Encoder::feed_forward_block(const BlockWeights& b, std::int64_t n, std::span<float> x,
                                 infer::ActivationScratch& scratch) const {
    const std::int64_t e = h_.n_embd, f = h_.n_ff;
    std::vector<float> up(sz(n * f)), out(sz(n * e));
    if (h_.arch == Arch::Bert) {
        infer::linear(b.ffn_up, x, n, up, scratch);
        infer::gelu_rows(up);
    } else {
        std::vector<float> gate(sz(n * f));
        const infer::LinearOutput gate_up[] = {{&b.ffn_gate, gate}, {&b.ffn_up, up}};
        infer::linear_shared_input(gate_up, x, n, scratch);
        infer::swiglu_rows(gate, up, n, f);
        up.swap(gate);
    }
    infer::linear(b.ffn_down, up, n, out, scratch);
    infer::add_rows(x, out);
    infer::layernorm_rows(x, x, n, e, b.layer_out_norm.weight.span<float>(), b.layer_out_norm.bias.span<float>(),
                          h_.norm_eps);
}

}  // namespace forge::bert
