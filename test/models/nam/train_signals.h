// A test signal shared by the training tests: a slow chirp plus a fixed tone, deterministic.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace forge::nam::train::testing {

inline std::vector<float> chirp(std::size_t n) {
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i)
        x[i] = 0.6f * std::sin(0.00002f * static_cast<float>(i * i)) + 0.1f * std::sin(0.3f * static_cast<float>(i));
    return x;
}

}  // namespace forge::nam::train::testing
