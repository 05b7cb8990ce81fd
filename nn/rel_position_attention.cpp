#include "nn/rel_position_attention.h"

#include "core/autograd/ops/matmul.h"
#include "core/autograd/ops/pointwise.h"
#include "core/autograd/ops/shape.h"
#include "core/autograd/ops/softmax.h"
#include "core/error.h"

#include <cmath>
#include <vector>

namespace forge::nn {

RelPositionAttention RelPositionAttention::make(ParameterSet& params, const std::string& prefix,
                                                const RelPositionAttentionConfig& config) {
    check(config.n_head > 0 && config.dim % config.n_head == 0, "attention: {} heads do not divide dim {}",
          config.n_head, config.dim);
    const Init init = Init::fan_in_uniform(config.dim);
    RelPositionAttention a;
    a.config = config;
    a.q = Linear::make(params, prefix + "linear_q", config.dim, config.dim, init, config.bias);
    a.k = Linear::make(params, prefix + "linear_k", config.dim, config.dim, init, config.bias);
    a.v = Linear::make(params, prefix + "linear_v", config.dim, config.dim, init, config.bias);
    a.out = Linear::make(params, prefix + "linear_out", config.dim, config.dim, init, config.bias);
    a.pos = Linear::make(params, prefix + "linear_pos", config.dim, config.dim, init, false);
    const Shape bias_shape{config.n_head, config.dim / config.n_head};
    a.pos_bias_u = params.add(prefix + "pos_bias_u", bias_shape, Init::zeros());
    a.pos_bias_v = params.add(prefix + "pos_bias_v", bias_shape, Init::zeros());
    return a;
}

Tensor RelPositionAttention::operator()(const Tensor& x, const Tensor& positions, const Tensor& key_mask) const {
    const std::int64_t b = x.size(0), t = x.size(1), h = config.n_head, dk = config.dim / h;
    check(positions.rank() == 2 && positions.size(0) == 2 * t - 1 && positions.size(1) == config.dim,
          "attention: positions must be [{}, {}] for {} frames, got {}", 2 * t - 1, config.dim, t,
          positions.shape().to_string());
    const Tensor qh = ag::reshape(q(x), Shape{b, t, h, dk});
    const Tensor kh = ag::transpose(ag::reshape(k(x), Shape{b, t, h, dk}), 1, 2);  // [B, H, T, dk]
    const Tensor vh = ag::transpose(ag::reshape(v(x), Shape{b, t, h, dk}), 1, 2);
    const Tensor ph = ag::transpose(ag::reshape(pos(positions), Shape{2 * t - 1, h, dk}), 0, 1);  // [H, 2T-1, dk]
    const Tensor q_u = ag::transpose(ag::add(qh, pos_bias_u), 1, 2);  // [B, H, T, dk]
    const Tensor q_v = ag::transpose(ag::add(qh, pos_bias_v), 1, 2);
    const Tensor content = ag::matmul(q_u, kh, false, true);                 // [B, H, T, T]
    const Tensor position = rel_shift(ag::matmul(q_v, ph, false, true));     // [B, H, T, T]
    const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
    Tensor scores = ag::add(content, position);
    if (key_mask.defined()) scores = ag::add(scores, key_mask);
    const Tensor weights = ag::softmax(scores, scale);
    const Tensor mixed = ag::transpose(ag::matmul(weights, vh), 1, 2);      // [B, T, H, dk]
    return out(ag::reshape(ag::contiguous(mixed), Shape{b, t, config.dim}));
}

namespace {

// [B, frames] of `real` for t < lengths[b], else `pad`, shaped `shape`.
Tensor length_mask(std::span<const std::int64_t> lengths, std::int64_t frames, float real, float pad,
                   const Shape& shape) {
    std::vector<float> values;
    for (const std::int64_t length : lengths) {
        check(length >= 1 && length <= frames, "mask: a length of {} frames in a batch of {}", length, frames);
        for (std::int64_t t = 0; t < frames; ++t) values.push_back(t < length ? real : pad);
    }
    return Tensor::from(std::span<const float>(values), shape);
}

}  // namespace

Tensor padded_key_mask(std::span<const std::int64_t> lengths, std::int64_t frames) {
    const auto b = static_cast<std::int64_t>(lengths.size());
    return length_mask(lengths, frames, 0.0f, -1e30f, Shape{b, 1, 1, frames});
}

Tensor padded_time_mask(std::span<const std::int64_t> lengths, std::int64_t frames) {
    const auto b = static_cast<std::int64_t>(lengths.size());
    return length_mask(lengths, frames, 1.0f, 0.0f, Shape{b, frames, 1});
}

Tensor relative_positions(std::int64_t length, std::int64_t dim) {
    check(length >= 1 && dim >= 2 && dim % 2 == 0, "relative positions: need length >= 1 and an even dim, got {} and {}",
          length, dim);
    std::vector<float> pe(static_cast<std::size_t>((2 * length - 1) * dim));
    for (std::int64_t r = 0; r < 2 * length - 1; ++r) {
        const double offset = static_cast<double>(length - 1 - r);
        for (std::int64_t i = 0; i < dim; i += 2) {
            const double angle = offset * std::exp(static_cast<double>(i) * -(std::log(10000.0) / static_cast<double>(dim)));
            pe[static_cast<std::size_t>(r * dim + i)] = static_cast<float>(std::sin(angle));
            pe[static_cast<std::size_t>(r * dim + i + 1)] = static_cast<float>(std::cos(angle));
        }
    }
    return Tensor::from(std::span<const float>(pe), Shape{2 * length - 1, dim});
}

Tensor rel_shift(const Tensor& scores) {
    const int r = scores.rank();
    const std::int64_t t = scores.size(r - 2), p = scores.size(r - 1);
    check(p == 2 * t - 1, "rel_shift: expected [..., T, 2T-1] scores, got {}", scores.shape().to_string());
    Shape zeros_shape = scores.shape(), tall = scores.shape();
    zeros_shape[r - 1] = 1;
    tall[r - 2] = p + 1;
    tall[r - 1] = t;
    const Tensor parts[] = {Tensor::zeros(zeros_shape), scores};
    const Tensor padded = ag::reshape(ag::concat(parts, r - 1), tall);  // [..., 2T, T]
    const Tensor shifted = ag::reshape(ag::contiguous(ag::narrow(padded, r - 2, 1, p)), scores.shape());
    return ag::narrow(shifted, r - 1, 0, t);
}

}  // namespace forge::nn
