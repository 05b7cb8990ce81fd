#include "core/random/random_tensor.h"

#include "core/random/counter_rng.h"
#include "core/thread_pool.h"

namespace forge::random {
namespace {

constexpr std::int64_t kGrain = 1 << 14;

// out[i] = value(i) for every element, spread over the pool (values depend on i alone).
template <typename F>
Tensor generate(const Shape& shape, F value) {
    Tensor out = Tensor::empty(shape);
    float* data = out.data<float>();
    ThreadPool::global().parallel_for(out.numel(), kGrain, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) data[i] = value(static_cast<std::uint64_t>(i));
    });
    return out;
}

}  // namespace

Tensor normal_tensor(const Shape& shape, std::uint64_t key, float mean, float stddev) {
    return generate(shape, [&](std::uint64_t i) { return mean + stddev * normal(key, i); });
}

Tensor uniform_tensor(const Shape& shape, std::uint64_t key, float low, float high) {
    return generate(shape, [&](std::uint64_t i) { return low + (high - low) * uniform(key, i); });
}

Tensor dropout_mask(const Shape& shape, std::uint64_t key, float keep) {
    const float scale = 1.0f / keep;
    return generate(shape, [&](std::uint64_t i) { return uniform(key, i) < keep ? scale : 0.0f; });
}

}  // namespace forge::random
