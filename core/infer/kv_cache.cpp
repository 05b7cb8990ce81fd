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

KvCache::KvCache(const KvCacheShape& shape, KvType type)
    : shape_(shape), type_(type), kv_width_(shape.n_head_kv * shape.head_dim) {
    check(shape.n_ctx > 0 && shape.n_ctx <= kMaxContext, "the context size must be 1 to {}, got {}", kMaxContext,
          shape.n_ctx);
    check(shape.n_slots > 0, "the KV cache needs at least one slot, got {}", shape.n_slots);
    check(type != KvType::Q8_0 || shape.head_dim % 32 == 0,
          "a q8_0 KV cache needs a head size that is a multiple of 32, not {}", shape.head_dim);
    lengths_.assign(static_cast<std::size_t>(shape.n_slots), 0);
    const auto total = static_cast<std::size_t>(shape.n_layer * 2 * shape.n_slots * shape.n_ctx * row_elements());
    switch (type) {
        case KvType::F32: f32_.assign(total, 0.0f); break;
        case KvType::F16: f16_.assign(total, 0); break;
        case KvType::Q8_0: q8_.assign(total, kernels::BlockQ8_0{}); break;
    }
}

std::size_t KvCache::check_slot(std::int64_t slot) const {
    check(slot >= 0 && slot < shape_.n_slots, "KV cache slot {} out of range [0, {})", slot, shape_.n_slots);
    return static_cast<std::size_t>(slot);
}

std::size_t KvCache::offset(std::int64_t layer, std::int64_t slot, int part, std::int64_t pos) const {
    return static_cast<std::size_t>((((layer * 2 + part) * shape_.n_slots + slot) * shape_.n_ctx + pos) * row_elements());
}

void KvCache::truncate(std::int64_t slot, std::int64_t n) {
    const std::size_t s = check_slot(slot);
    check(n >= 0 && n <= lengths_[s], "truncate: {} is not within the {} cached positions of slot {}", n, lengths_[s], slot);
    lengths_[s] = n;
}

void KvCache::copy_prefix(std::int64_t from, std::int64_t to, std::int64_t n) {
    const std::size_t f = check_slot(from), t = check_slot(to);
    check(n >= 0 && n <= lengths_[f], "copy_prefix: {} is not within the {} cached positions of slot {}", n, lengths_[f],
          from);
    if (from != to) copy_rows(from, to, n);
    lengths_[t] = n;
}

void KvCache::copy_rows(std::int64_t from, std::int64_t to, std::int64_t n) {
    const auto count = static_cast<std::ptrdiff_t>(n * row_elements());
    const auto copy = [&](auto& storage) {
        for (std::int64_t layer = 0; layer < shape_.n_layer; ++layer) {
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
        const std::size_t at = offset(layer, slot, part, pos);
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
