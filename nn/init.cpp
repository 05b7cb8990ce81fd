#include "nn/init.h"

#include "core/random/counter_rng.h"
#include "core/random/random_tensor.h"

#include <cmath>

namespace forge::nn {

Init Init::fan_in_uniform(std::int64_t fan_in) {
    return uniform(1.0f / std::sqrt(static_cast<float>(fan_in)));
}

std::uint64_t parameter_key(std::uint64_t seed, std::string_view name) {
    std::uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a, 64 bits
    for (const char c : name) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 0x100000001b3ull;
    }
    return random::stream_key(seed, hash);
}

Tensor init_tensor(const Shape& shape, const Init& init, std::uint64_t key) {
    switch (init.kind) {
        case Init::Kind::Zeros: return Tensor::zeros(shape);
        case Init::Kind::Ones: return Tensor::full(shape, 1.0f);
        case Init::Kind::Normal: return random::normal_tensor(shape, key, 0.0f, init.scale);
        case Init::Kind::Uniform: return random::uniform_tensor(shape, key, -init.scale, init.scale);
    }
    return {};
}

}  // namespace forge::nn
