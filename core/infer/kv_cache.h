// The key/value cache of the inference front-end: for every layer, the keys and values of
// every position of every sequence, so that a new token attends to its past without
// recomputing it.
//
// The cache has n_slots slots, one sequence each, of n_ctx positions. A slot's rows are one
// contiguous block per layer and part (keys, values), [n_ctx, n_head_kv * head_dim],
// allocated once up front: decoding never allocates. Each slot knows its length (positions
// written); a prefix of one slot can be copied into another (two requests sharing a system
// prompt). Storage is f16 by default (what llama.cpp keeps), f32 for exact comparisons, or
// Q8_0 blocks (a quarter of f32; head_dim must be a multiple of 32).
//
// A sliding-window layer (gemma3's local layers) attends only to its `window` latest
// positions, so it keeps only those, plus `slack`, in a ring of window + slack rows per slot
// (position p in row p % rows): a long context costs memory for the full layers alone. The
// slack bounds two things: a forward pass may write at most slack + 1 positions of one slot
// (each query must still find its window after the pass's later rows are stored), and a slot
// can be cut back only to min_truncation() (the positions a rollback returns to must still
// be in the ring).
#pragma once

#include "kernels/quant_blocks.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace forge::infer {

// The largest context forge allocates a cache for (16 Mi positions; the longest-context open
// models reach 10 M), so that a --ctx or a request cannot overflow the cache's size.
inline constexpr std::int64_t kMaxContext = std::int64_t{1} << 24;

enum class KvType { F16, F32, Q8_0 };

// "f16", "f32" or "q8_0" (the --kv-type option); anything else is an error naming the option.
KvType kv_type_from_name(const std::string& name);

struct KvCacheShape {
    std::int64_t n_layer;
    std::int64_t n_slots;    // sequences held at once
    std::int64_t n_ctx;      // positions per slot
    std::int64_t n_head_kv;
    std::int64_t head_dim;
};

// Per layer, the window it attends over (0: the whole context), and the ring's slack.
struct SlidingLayers {
    std::vector<std::int64_t> windows;  // empty: every layer is full
    std::int64_t slack = 0;
};

class KvCache {
public:
    KvCache(const KvCacheShape& shape, KvType type, const SlidingLayers& sliding = {});

    KvType type() const { return type_; }
    std::int64_t n_slots() const { return shape_.n_slots; }
    std::int64_t n_ctx() const { return shape_.n_ctx; }
    std::int64_t head_dim() const { return shape_.head_dim; }
    std::int64_t kv_width() const { return kv_width_; }
    std::size_t bytes() const {
        return f32_.size() * sizeof(float) + f16_.size() * sizeof(std::uint16_t) + q8_.size() * sizeof(kernels::BlockQ8_0);
    }

    // The window `layer` attends over (0: every position), and the rows per slot it keeps:
    // n_ctx, or a ring of fewer.
    std::int64_t window(std::int64_t layer) const { return windows_[static_cast<std::size_t>(layer)]; }
    std::int64_t rows(std::int64_t layer) const { return rows_[static_cast<std::size_t>(layer)]; }
    // The most positions of one slot a forward pass may write (n_ctx without rings).
    std::int64_t max_rows_per_pass() const;

    // Positions written to `slot`: its keys and values at 0 .. length - 1 are valid (in a ring,
    // the latest ones).
    std::int64_t length(std::int64_t slot) const { return lengths_[check_slot(slot)]; }
    // The shortest length other than 0 the slot can be cut back to: a ring still holds the
    // window before it. The slot's length when there are no rings.
    std::int64_t min_truncation(std::int64_t slot) const;
    // Keep the first n positions of a slot (n <= its length; 0 or at least min_truncation):
    // what follows is overwritten next.
    void truncate(std::int64_t slot, std::int64_t n);
    // Slot `to` becomes a copy of the first n positions of slot `from` (n <= from's length;
    // 0 or at least from's min_truncation).
    void copy_prefix(std::int64_t from, std::int64_t to, std::int64_t n);

    // Write one position's key and value rows (kv_width values each) of `layer`. The slot's
    // length does not change until commit(): a forward pass stores every layer of its rows,
    // then commits them.
    void store(std::int64_t layer, std::int64_t slot, std::int64_t pos, std::span<const float> key,
               std::span<const float> value);
    // Every layer of `pos` is stored; pos is at most the slot's length (positions are written
    // in order, a rewrite follows a truncate). The slot now holds pos + 1 positions.
    void commit(std::int64_t slot, std::int64_t pos);

    // One kv head of the keys or values of a slot's rows, from row `row` on (position p is row
    // p % rows(layer)): head_dim values per position, kv_width() apart (the layout
    // kernels/kv_attention.h reads); for Q8_0, head_dim / 32 blocks per position, kv_width() / 32
    // apart. Only the span of the cache's own type is non-empty.
    enum class Part { Keys = 0, Values = 1 };
    std::span<const float> head_rows_f32(std::int64_t layer, std::int64_t slot, Part part, std::int64_t head,
                                         std::int64_t row = 0) const {
        return f32_.empty() ? std::span<const float>() : std::span(f32_).subspan(head_offset(layer, slot, part, head, row));
    }
    std::span<const std::uint16_t> head_rows_f16(std::int64_t layer, std::int64_t slot, Part part, std::int64_t head,
                                                 std::int64_t row = 0) const {
        return f16_.empty() ? std::span<const std::uint16_t>()
                            : std::span(f16_).subspan(head_offset(layer, slot, part, head, row));
    }
    std::span<const kernels::BlockQ8_0> head_rows_q8_0(std::int64_t layer, std::int64_t slot, Part part,
                                                       std::int64_t head, std::int64_t row = 0) const {
        return q8_.empty() ? std::span<const kernels::BlockQ8_0>()
                           : std::span(q8_).subspan(head_offset(layer, slot, part, head, row));
    }

private:
    std::size_t check_slot(std::int64_t slot) const;
    // Elements (values, or Q8_0 blocks) per position, and where a position's row starts.
    std::int64_t row_elements() const { return type_ == KvType::Q8_0 ? kv_width_ / 32 : kv_width_; }
    std::size_t offset(std::int64_t layer, std::int64_t slot, int part, std::int64_t row) const;
    std::size_t head_offset(std::int64_t layer, std::int64_t slot, Part part, std::int64_t head, std::int64_t row) const {
        const std::int64_t per_head = type_ == KvType::Q8_0 ? shape_.head_dim / 32 : shape_.head_dim;
        return offset(layer, slot, static_cast<int>(part), row) + static_cast<std::size_t>(head * per_head);
    }
    bool is_ring(std::int64_t layer) const { return rows(layer) < shape_.n_ctx; }
    void check_cut(std::int64_t slot, std::int64_t n, const char* what) const;
    void copy_rows(std::int64_t from, std::int64_t to, std::int64_t n);

    KvCacheShape shape_;
    KvType type_;
    std::int64_t kv_width_;
    std::vector<std::int64_t> lengths_;         // per slot
    std::vector<std::int64_t> windows_, rows_;  // per layer
    std::vector<std::size_t> layer_starts_;     // per layer: where its keys begin in the storage
    std::vector<float> f32_;                    // used when type_ == F32
    std::vector<std::uint16_t> f16_;            // used when type_ == F16
    std::vector<kernels::BlockQ8_0> q8_;        // used when type_ == Q8_0
};

}  // namespace forge::infer
