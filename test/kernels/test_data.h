// Shared inputs and comparisons for the kernel tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace forge::kernels::testing {

// Lengths that straddle every vector width (4, 8, 16 lanes) and leave every possible tail.
inline const std::vector<std::size_t> kLengths = {0,  1,  3,  7,  8,   9,   15,  16,   17,  31,
                                                  33, 63, 64, 65, 127, 255, 257, 1000, 4097};

inline std::vector<float> uniform(std::size_t n, float low, float high, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(low, high);
    std::vector<float> values(n);
    for (auto& v : values) v = dist(rng);
    return values;
}

// |got - want| <= rel * |want| + abs, with NaN matching NaN and infinities matching exactly.
inline ::testing::AssertionResult close(double got, double want, double rel, double abs = 0.0) {
    if (std::isnan(want) && std::isnan(got)) return ::testing::AssertionSuccess();
    if (std::isinf(want) || std::isinf(got)) {
        if (got == want) return ::testing::AssertionSuccess();
    } else if (std::fabs(got - want) <= rel * std::fabs(want) + abs) {
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "got " << got << ", want " << want << " (relative error "
                                         << std::fabs(got - want) / std::fabs(want) << ")";
}

}  // namespace forge::kernels::testing
