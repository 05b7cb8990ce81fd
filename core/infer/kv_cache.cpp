#include "core/infer/kv_cache.h"

#include "core/error.h"
#include "kernels/backend.h"
#include "kernels/convert.h"
#include "kernels/quantize.h"

#include <algorithm>

namespace forge::infer {

KvType kv_type_from_name(const std::string& name) {
    if (name == "f16") return KvType::F16;
    if (name == "f32") return KvType::F32;
    if (name == "q8_0") return KvType::Q8_0;
    throw Error(fmt::format("the KV cache type must be f16, f32 or q8_0, not '{}'", name));
}

KvCache::KvCache(const KvCacheShape& shape, KvType type, const SlidingLayers& sliding)
    : shape_(shape), type_(type), kv_width_(shape.n_head_kv * shape.head_dim) {
    check(shape.n_ctx > 0 && shape.n_ctx <= kMaxContext, "the context size must be 1 to {}, got {}", kMaxContext,
          shape.n_ctx);
    check(shape.n_slots > 0, "the KV cache needs at least one slot, got {}", shape.n_slots);
    check(type != KvType::Q8_0 || shape.head_dim % 32 == 0,
          "a q8_0 KV cache needs a head size that is a multiple of 32, not {}", shape.head_dim);
    check(sliding.windows.empty() || static_cast<std::int64_t>(sliding.windows.size()) == shape.n_layer,
          "the KV cache has {} layers but {} sliding windows", shape.n_layer, sliding.windows.size());
    check(sliding.slack >= 0, "the KV cache's ring slack must not be negative, got {}", sliding.slack);
    lengths_.assign(static_cast<std::size_t>(shape.n_slots), 0);
    std::size_t total = 0;
    for (std::int64_t layer = 0; layer < shape.n_layer; ++layer) {
        const std::int64_t window = sliding.windows.empty() ? 0 : sliding.windows[static_cast<std::size_t>(layer)];
        check(window >= 0, "layer {}: a sliding window must not be negative, got {}", layer, window);
        windows_.push_back(window);
        rows_.push_back(window > 0 ? std::min(shape.n_ctx, window + sliding.slack) : shape.n_ctx);
        layer_starts_.push_back(total);
        total += static_cast<std::size_t>(2 * shape.n_slots * rows_.back() * row_elements());
    }
    switch (type) {
        case KvType::F32: f32_.assign(total, 0.0f); break;
        case KvType::F16: f16_.assign(total, 0); break;
        case KvType::Q8_0: q8_.assign(total, kernels::BlockQ8_0{}); break;
    }
}

// A pass writing k positions of a slot overwrites the ring rows of the k oldest it held; its
// first query still needs the window - 1 before it: k <= rows - window + 1.
std::int64_t KvCache::max_rows_per_pass() const {
    std::int64_t most = shape_.n_ctx;
    for (std::int64_t layer = 0; layer < shape_.n_layer; ++layer) {
        if (is_ring(layer)) most = std::min(most, rows(layer) - window(layer) + 1);
    }
    return most;
}

// Cut back to n, the next query (at n) needs positions n - window + 1 .. n - 1; a ring that
// has wrapped holds only length - rows .. length - 1.
std::int64_t KvCache::min_truncation(std::int64_t slot) const {
    const std::int64_t length = lengths_[check_slot(slot)];
    std::int64_t shortest = 0;
    for (std::int64_t layer = 0; layer < shape_.n_layer; ++layer) {
        if (is_ring(layer) && length > rows(layer)) shortest = std::max(shortest, length - rows(layer) + window(layer) - 1);
    }
    return std::min(shortest, length);
}

std::size_t KvCache::check_slot(std::int64_t slot) const {
    check(slot >= 0 && slot < shape_.n_slots, "KV cache slot {} out of range [0, {})", slot, shape_.n_slots);
    return static_cast<std::size_t>(slot);
}

std::size_t KvCache::offset(std::int64_t layer, std::int64_t slot, int part, std::int64_t row) const {
    const auto l = static_cast<std::size_t>(layer);
    return layer_starts_[l] + static_cast<std::size_t>(((part * shape_.n_slots + slot) * rows_[l] + row) * row_elements());
}

void KvCache::check_cut(std::int64_t slot, std::int64_t n, const char* what) const {
    const std::int64_t length = lengths_[check_slot(slot)];
    check(n >= 0 && n <= length, "{}: {} is not within the {} cached positions of slot {}", what, n, length, slot);
    check(n == 0 || n >= min_truncation(slot),
          "{}: slot {} cannot go back to {} of its {} positions: its sliding-window layers keep only the latest "
          "(0 or at least {})",
          what, slot, n, length, min_truncation(slot));
}

void KvCache::truncate(std::int64_t slot, std::int64_t n) {
    check_cut(slot, n, "truncate");
    lengths_[check_slot(slot)] = n;
}

void KvCache::copy_prefix(std::int64_t from, std::int64_t to, std::int64_t n) {
    check_cut(from, n, "copy_prefix");
    const std::size_t t = check_slot(to);
    if (from != to) copy_rows(from, to, n);
    lengths_[t] = n;
}

// A full layer's first n rows; a ring whole (position p sits in row p % rows in every slot).
void KvCache::copy_rows(std::int64_t from, std::int64_t to, std::int64_t n) {
    const auto copy = [&](auto& storage) {
        for (std::int64_t layer = 0; layer < shape_.n_layer; ++layer) {
            const auto count = static_cast<std::ptrdiff_t>((is_ring(layer) ? rows(layer) : n) * row_elements());
            for (int part = 0; part < 2; ++part) {
                const auto src = storage.begin() + static_cast<std::ptrdiff_t>(offset(layer, from, part, 0));
                std::copy(src, src + count, storage.begin() + static_cast<std::ptrdiff_t>(offset(layer, to, part, 0)));
            }
        }
    };
    switch (type_) {
        case KvType::F32: copy(f32_); break;
        case KvType::F16: copy(f16_); break;
        case KvType::Q8_0: copy(q8_); break;
    }
}

void KvCache::store(std::int64_t layer, std::int64_t slot, std::int64_t pos, std::span<const float> key,
                    std::span<const float> value) {
    check_slot(slot);
    check(pos >= 0 && pos < shape_.n_ctx, "the context is full: position {} does not fit in a context of {}", pos,
          shape_.n_ctx);
    const auto width = static_cast<std::size_t>(kv_width_), blocks = width / 32;
    for (int part = 0; part < 2; ++part) {
        const std::span<const float> src = (part == 0 ? key : value).first(width);
        const std::size_t at = offset(layer, slot, part, pos % rows(layer));
        switch (type_) {
            case KvType::F32: std::copy(src.begin(), src.end(), f32_.begin() + static_cast<std::ptrdiff_t>(at)); break;
            case KvType::F16: kernels::active::f32_to_f16(src, std::span(f16_).subspan(at, width)); break;
            case KvType::Q8_0: kernels::active::quantize(src, std::span(q8_).subspan(at, blocks)); break;
        }
    }
}

void KvCache::commit(std::int64_t slot, std::int64_t pos) {
    const std::size_t s = check_slot(slot);
    check(pos >= 0 && pos <= lengths_[s] && pos < shape_.n_ctx, "KV cache slot {}: position {} leaves a gap after {}",
          slot, pos, lengths_[s]);
    lengths_[s] = pos + 1;
}

}  // namespace forge::infer
