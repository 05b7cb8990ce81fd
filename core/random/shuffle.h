// Shuffling with the counter RNG (counter_rng.h): Fisher-Yates where the swap partner of
// position i-1 is random_bits(key, i) % i. The order is a function of (key, size) alone, so
// a seed gives the same order with any standard library (std::shuffle's algorithm is left to
// the implementation: libstdc++ and libc++ order the same mt19937 differently).
#pragma once

#include "core/random/counter_rng.h"

#include <cstdint>
#include <span>
#include <utility>

namespace forge::random {

template <typename T>
void shuffle(std::span<T> items, std::uint64_t key) {
    for (std::size_t i = items.size(); i > 1; --i) {
        const auto j = static_cast<std::size_t>(random_bits(key, i) % i);  // bias below 2^-40 for any real size
        std::swap(items[i - 1], items[j]);
    }
}

}  // namespace forge::random
