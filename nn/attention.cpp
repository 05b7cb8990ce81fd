#include "nn/attention.h"

#include "core/autograd/ops/matmul.h"
#include "core/autograd/ops/rope.h"
#include "core/autograd/ops/shape.h"
#include "core/autograd/ops/softmax.h"
#include "core/error.h"

#include <cmath>

namespace forge::nn {
namespace {

// [B, T, H·hd] -> [B, T, H, hd]
Tensor split_heads(const Tensor& x, std::int64_t heads, std::int64_t head_dim) {
    return ag::reshape(x, Shape{x.size(0), x.size(1), heads, head_dim});
}

// [B, Hkv, T, hd] -> [B, Hkv·group, T, hd]: each key/value head serves `group` query heads.
Tensor repeat_kv(const Tensor& x, std::int64_t group) {
    if (group == 1) return x;
    const std::int64_t b = x.size(0), h = x.size(1), t = x.size(2), d = x.size(3);
    const Tensor wide = ag::broadcast_to(ag::unsqueeze(x, 2), Shape{b, h, group, t, d});
    return ag::reshape(ag::contiguous(wide), Shape{b, h * group, t, d});
}

}  // namespace

Attention Attention::make(ParameterSet& params, const std::string& prefix, const AttentionConfig& config,
                          const Init& in_init, const Init& out_init) {
    check(config.n_head > 0 && config.n_kv_head > 0 && config.n_head % config.n_kv_head == 0,
          "attention: {} query heads cannot share {} key/value heads", config.n_head, config.n_kv_head);
    Attention a;
    a.config = config;
    const std::int64_t q_width = config.n_head * config.head_dim, kv_width = config.n_kv_head * config.head_dim;
    a.q = Linear::make(params, prefix + "attn_q", config.dim, q_width, in_init);
    a.k = Linear::make(params, prefix + "attn_k", config.dim, kv_width, in_init);
    a.v = Linear::make(params, prefix + "attn_v", config.dim, kv_width, in_init);
    a.o = Linear::make(params, prefix + "attn_output", q_width, config.dim, out_init);
    if (config.qk_norm) {
        a.q_norm = RmsNorm::make(params, prefix + "attn_q_norm", config.head_dim, config.norm_eps,
                                 config.learnable_qk_norm);
        a.k_norm = RmsNorm::make(params, prefix + "attn_k_norm", config.head_dim, config.norm_eps,
                                 config.learnable_qk_norm);
    }
    return a;
}

Tensor causal_self_attention(Tensor qh, Tensor kh, const Tensor& vh, const RopeConfig& rope, bool rotate) {
    const std::int64_t b = qh.size(0), t = qh.size(1), n_head = qh.size(2), head_dim = qh.size(3);
    const std::int64_t group = n_head / kh.size(2);
    if (rotate) {
        const Tensor positions = Tensor::arange(t).to(DType::I64);
        qh = ag::rope(qh, positions, rope);
        kh = ag::rope(kh, positions, rope);
    }
    qh = ag::transpose(qh, 1, 2);  // [B, H, T, hd]
    kh = repeat_kv(ag::transpose(kh, 1, 2), group);
    const Tensor vt = repeat_kv(ag::transpose(vh, 1, 2), group);
    const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
    const Tensor weights = ag::softmax(ag::matmul(qh, kh, false, true), scale, /*causal=*/true);
    const Tensor mixed = ag::transpose(ag::matmul(weights, vt), 1, 2);  // [B, T, H, hd]
    return ag::reshape(ag::contiguous(mixed), Shape{b, t, n_head * head_dim});
}

Tensor Attention::operator()(const Tensor& x) const {
    const auto& c = config;
    Tensor qh = split_heads(q(x), c.n_head, c.head_dim);  // [B, T, H, hd]
    Tensor kh = split_heads(k(x), c.n_kv_head, c.head_dim);
    const Tensor vh = split_heads(v(x), c.n_kv_head, c.head_dim);
    if (c.qk_norm) {
        qh = q_norm(qh);
        kh = k_norm(kh);
    }
    const RopeConfig rope{.theta_base = c.rope_base, .mode = c.rope_mode};
    return o(causal_self_attention(qh, kh, vh, rope));
}

}  // namespace forge::nn
