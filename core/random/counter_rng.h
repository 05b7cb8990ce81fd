// Counter-based random numbers: a value is a pure function of (key, counter), never of how
// many numbers were drawn before. Any element can be regenerated alone and in any order, so
//   - dropout recomputes the same mask from (seed, element), and
//   - evolution strategies regenerate each member's noise from (seed, iteration, member,
//     element) instead of storing it, identically on any number of threads.
//
// The mixing function is SplitMix64's finalizer (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", 2014): a bijection on 64 bits with full avalanche, so
// neighbouring counters give unrelated outputs.
#pragma once

#include <cmath>
#include <cstdint>

namespace forge::random {

constexpr std::uint64_t mix64(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// A key for one stream of numbers, derived from a seed and up to three stream ids.
constexpr std::uint64_t stream_key(std::uint64_t seed, std::uint64_t a = 0, std::uint64_t b = 0,
                                   std::uint64_t c = 0) {
    return mix64(mix64(mix64(mix64(seed) ^ a) ^ b) ^ c);
}

constexpr std::uint64_t random_bits(std::uint64_t key, std::uint64_t counter) { return mix64(key ^ mix64(counter)); }

// Uniform in [0, 1) with 24 random bits (every value exactly representable as a float).
inline float uniform(std::uint64_t key, std::uint64_t counter) {
    return static_cast<float>(random_bits(key, counter) >> 40) * 0x1p-24f;
}

// Standard normal by Box-Muller from the two halves of one 64-bit draw, computed in double
// and rounded once, so the value is the same on every platform with a correct libm.
inline float normal(std::uint64_t key, std::uint64_t counter) {
    const std::uint64_t bits = random_bits(key, counter);
    const double u1 = (static_cast<double>(bits >> 32) + 1.0) * 0x1p-32;  // (0, 1]: log is finite
    const double u2 = static_cast<double>(bits & 0xffffffffull) * 0x1p-32;
    return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
}

}  // namespace forge::random
