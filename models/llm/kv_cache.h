// The key/value cache of one conversation: for every layer, the keys and values of every
// position so far, so that a new token attends to the past without recomputing it.
//
// One contiguous block per layer, [n_ctx, n_head_kv * head_dim] for keys and again for
// values, allocated once for the whole context: decoding never allocates. Half precision by
// default (what llama.cpp keeps); f32 for exact comparisons.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace forge::llm {

enum class KvType { F16, F32 };

class KvCache {
public:
    KvCache(std::int64_t n_layer, std::int64_t n_ctx, std::int64_t n_head_kv, std::int64_t head_dim, KvType type);

    KvType type() const { return type_; }
    std::int64_t n_ctx() const { return n_ctx_; }
    std::int64_t kv_width() const { return kv_width_; }
    std::size_t bytes() const { return f32_.size() * sizeof(float) + f16_.size() * sizeof(std::uint16_t); }

    // Write `rows` consecutive positions starting at `pos` (rows of kv_width values).
    void store(std::int64_t layer, std::int64_t pos, std::int64_t rows, std::span<const float> keys,
               std::span<const float> values);

    // One head's key or value at `pos` as head_dim floats: the cache itself when it holds
    // f32, else converted into `out`.
    const float* key(std::int64_t layer, std::int64_t pos, std::int64_t head, std::span<float> out) const {
        return head_row(layer, 0, pos, head, out);
    }
    const float* value(std::int64_t layer, std::int64_t pos, std::int64_t head, std::span<float> out) const {
        return head_row(layer, 1, pos, head, out);
    }

private:
    std::size_t offset(std::int64_t layer, int which, std::int64_t pos) const;
    const float* head_row(std::int64_t layer, int which, std::int64_t pos, std::int64_t head, std::span<float> out) const;

    KvType type_;
    std::int64_t n_ctx_, head_dim_, kv_width_;
    std::vector<float> f32_;           // used when type_ == F32
    std::vector<std::uint16_t> f16_;   // used when type_ == F16
};

}  // namespace forge::llm
