#include "models/llm/kv_cache.h"

#include "core/error.h"
#include "kernels/backend.h"
#include "kernels/convert.h"

#include <algorithm>

namespace forge::llm {

KvType kv_type_from_name(const std::string& name) {
    if (name == "f16") return KvType::F16;
    if (name == "f32") return KvType::F32;
    throw Error(fmt::format("--kv-type must be f16 or f32, not '{}'", name));
}

KvCache::KvCache(std::int64_t n_layer, std::int64_t n_ctx, std::int64_t n_head_kv, std::int64_t head_dim, KvType type)
    : type_(type), n_ctx_(n_ctx), head_dim_(head_dim), kv_width_(n_head_kv * head_dim) {
    check(n_ctx > 0 && n_ctx <= kMaxContext, "the context size must be 1 to {}, got {}", kMaxContext, n_ctx);
    const auto total = static_cast<std::size_t>(n_layer * 2 * n_ctx * kv_width_);
    if (type == KvType::F32) {
        f32_.assign(total, 0.0f);
    } else {
        f16_.assign(total, 0);
    }
}

std::size_t KvCache::offset(std::int64_t layer, int which, std::int64_t pos) const {
    return static_cast<std::size_t>(((layer * 2 + which) * n_ctx_ + pos) * kv_width_);
}

void KvCache::store(std::int64_t layer, std::int64_t pos, std::int64_t rows, std::span<const float> keys,
                    std::span<const float> values) {
    check(pos >= 0 && pos + rows <= n_ctx_, "the context is full: {} positions do not fit in --ctx {}", pos + rows, n_ctx_);
    const auto count = static_cast<std::size_t>(rows * kv_width_);
    for (int which = 0; which < 2; ++which) {
        const std::span<const float> src = (which == 0 ? keys : values).first(count);
        if (type_ == KvType::F32) {
            std::copy(src.begin(), src.end(), f32_.begin() + static_cast<std::ptrdiff_t>(offset(layer, which, pos)));
        } else {
            kernels::active::f32_to_f16(src, std::span(f16_).subspan(offset(layer, which, pos), count));
        }
    }
}

}  // namespace forge::llm
