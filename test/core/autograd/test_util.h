// Helpers shared by the autograd tests: seeded inputs and a gradcheck assertion.
#pragma once

#include "core/autograd/ag.h"
#include "core/autograd/gradcheck.h"
#include "core/random/counter_rng.h"
#include "core/random/random_tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace forge::ag::testing {

// Uniform in [low, high), marked requires_grad.
inline Tensor param(const Shape& shape, std::uint64_t seed, float low = -1.0f, float high = 1.0f) {
    return requires_grad(random::uniform_tensor(shape, random::stream_key(seed, 99), low, high));
}

// Uniform, kept at least `gap` away from 0 (for functions with a kink there: relu, abs).
inline Tensor param_away_from_zero(const Shape& shape, std::uint64_t seed, float gap = 0.1f) {
    Tensor x = random::uniform_tensor(shape, random::stream_key(seed, 98), -1.0f, 1.0f);
    for (float& v : x.span<float>()) v = v < 0 ? v - gap : v + gap;
    return requires_grad(x);
}

inline Tensor ids(std::initializer_list<std::int64_t> values, const Shape& shape) {
    return Tensor::from(std::span<const std::int64_t>(values.begin(), values.size()), shape);
}

inline ::testing::AssertionResult passes_gradcheck(const DifferentiableFunction& f, std::vector<Tensor> inputs,
                                                   const GradcheckOptions& options = {}) {
    const GradcheckResult result = gradcheck(f, std::move(inputs), options);
    if (result.ok) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "gradcheck failed (worst excess " << result.worst_error << ")\n"
                                         << result.report;
}

}  // namespace forge::ag::testing
