#include "core/ops/softmax.h"

#include "core/ops/check_f32.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/softmax.h"

namespace forge {
namespace {

constexpr std::int64_t kElementGrain = 1 << 16;

using RowKernel = void (*)(std::span<const float>, float, std::size_t, std::span<float>) noexcept;

Tensor softmax_rows(const Tensor& x, float scale, bool causal, std::string_view name, RowKernel kernel) {
    check_f32(x, name);
    check(x.rank() >= 1, "{}: needs at least one axis, got a rank-0 tensor", name);
    check(!causal || x.rank() >= 2, "{}: a causal mask needs scores of shape [..., q, k], got shape {}", name,
          x.shape().to_string());
    const Tensor in = x.contiguous();
    Tensor out = Tensor::empty(x.shape());
    if (x.numel() == 0) return out;
    const std::int64_t keys = x.size(-1);
    const std::int64_t queries = causal ? x.size(-2) : 1;
    const std::int64_t rows = x.numel() / keys;
    const float* src = in.data<float>();
    float* dst = out.data<float>();
    const std::int64_t grain = std::max<std::int64_t>(1, kElementGrain / keys);
    ThreadPool::global().parallel_for(rows, grain, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t r = begin; r < end; ++r) {
            // Query i (the row's index within its [q, k] matrix) sees keys j <= i + (k - q).
            const std::int64_t visible =
                causal ? std::clamp<std::int64_t>(r % queries + (keys - queries) + 1, 0, keys) : keys;
            kernel({src + r * keys, static_cast<std::size_t>(keys)}, scale, static_cast<std::size_t>(visible),
                   {dst + r * keys, static_cast<std::size_t>(keys)});
        }
    });
    return out;
}

}  // namespace

Tensor softmax(const Tensor& x, float scale, bool causal) {
    return softmax_rows(x, scale, causal, "softmax", kernels::active::softmax);
}

Tensor log_softmax(const Tensor& x, float scale, bool causal) {
    return softmax_rows(x, scale, causal, "log_softmax", kernels::active::log_softmax);
}

}  // namespace forge
