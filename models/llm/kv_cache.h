// The key/value cache of one conversation: for every layer, the keys and values of every
// position so far, so that a new token attends to the past without recomputing it.
//
// One contiguous block per layer, [n_ctx, n_head_kv * head_dim] for keys and again for
// values, allocated once for the whole context: decoding never allocates. Half precision by
// default (what llama.cpp keeps); f32 for exact comparisons.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace forge::llm {

enum class KvType { F16, F32 };

// The largest context forge allocates a cache for (16 Mi positions; the longest-context open
// models reach 10 M), so that a --ctx or a request cannot overflow the cache's size.
inline constexpr std::int64_t kMaxContext = std::int64_t{1} << 24;

// "f16" or "f32" (the --kv-type option); anything else is an error naming the option.
KvType kv_type_from_name(const std::string& name);

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

    // One kv head of the keys or values of every position: head_dim values per position,
    // kv_width() apart (the layout kernels/kv_attention.h reads). Only the span of the
    // cache's own type is non-empty.
    enum class Part { Keys = 0, Values = 1 };
    std::span<const float> head_rows_f32(std::int64_t layer, Part part, std::int64_t head) const {
        return f32_.empty() ? std::span<const float>() : std::span(f32_).subspan(head_offset(layer, part, head));
    }
    std::span<const std::uint16_t> head_rows_f16(std::int64_t layer, Part part, std::int64_t head) const {
        return f16_.empty() ? std::span<const std::uint16_t>() : std::span(f16_).subspan(head_offset(layer, part, head));
    }

private:
    std::size_t offset(std::int64_t layer, int which, std::int64_t pos) const;
    std::size_t head_offset(std::int64_t layer, Part part, std::int64_t head) const {
        return offset(layer, static_cast<int>(part), 0) + static_cast<std::size_t>(head * head_dim_);
    }

    KvType type_;
    std::int64_t n_ctx_, head_dim_, kv_width_;
    std::vector<float> f32_;           // used when type_ == F32
    std::vector<std::uint16_t> f16_;   // used when type_ == F16
};

}  // namespace forge::llm
