// Helpers for the op tests: random tensors, and comparison with a double-precision reference.
#pragma once

#include "core/tensor.h"
#include "core/thread_pool.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace forge::testing {

inline Tensor random_tensor(const Shape& shape, float low, float high, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(low, high);
    std::vector<float> values(static_cast<std::size_t>(shape.product()));
    for (auto& v : values) v = dist(rng);
    return Tensor::from(std::span<const float>(values), shape);
}

// Every element of `got` within rel * |want| + abs of `want` (NaN matches NaN, inf matches inf).
inline void expect_close(const Tensor& got, const std::vector<double>& want, double rel, double abs,
                         const std::string& what = "") {
    ASSERT_EQ(got.numel(), static_cast<std::int64_t>(want.size())) << what;
    const std::vector<float> values = got.to_vector();
    for (std::size_t i = 0; i < want.size(); ++i) {
        if (std::isnan(want[i])) {
            ASSERT_TRUE(std::isnan(values[i])) << what << " at " << i;
        } else if (std::isinf(want[i])) {
            ASSERT_EQ(values[i], want[i]) << what << " at " << i;
        } else {
            ASSERT_NEAR(values[i], want[i], rel * std::fabs(want[i]) + abs) << what << " at " << i;
        }
    }
}

// Expect `f` to throw forge::Error whose message contains `fragment`.
template <typename F>
void expect_error(F f, const std::string& fragment) {
    try {
        f();
        ADD_FAILURE() << "expected an error containing \"" << fragment << "\"";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << "message: " << e.what();
    }
}

// The global pool resized for one scope, then restored.
class ScopedThreads {
public:
    explicit ScopedThreads(int threads) { ThreadPool::set_global_threads(threads); }
    ~ScopedThreads() { ThreadPool::set_global_threads(ThreadPool::default_threads()); }
    ScopedThreads(const ScopedThreads&) = delete;
    ScopedThreads& operator=(const ScopedThreads&) = delete;
};

}  // namespace forge::testing
