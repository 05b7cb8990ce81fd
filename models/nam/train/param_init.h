// Seeded parameter initialization shared by the trainable models: U(-bound, bound) values
// from splitmix64, a tiny portable generator, so a seed gives the same model on every
// platform (std::uniform_real_distribution's output is implementation-defined).
#pragma once

#include <cstdint>
#include <vector>

namespace forge::nam::train {

inline std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// `count` values uniform in [-bound, bound), advancing `state`.
inline std::vector<float> uniform_init(std::size_t count, double bound, std::uint64_t& state) {
    std::vector<float> values(count);
    for (float& v : values) {
        const double u = static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;  // [0, 1)
        v = static_cast<float>((2.0 * u - 1.0) * bound);
    }
    return values;
}

}  // namespace forge::nam::train
