// The scalar definitions of the activation functions that more than one kernel applies: the
// element-wise kernels (unary, unary_grad), the fused NAM layer and the LSTM cell all call
// these, so each formula is written once: one sigmoid, and besides std::tanh (the one exact
// tanh) one fast tanh. Plain expressions: the executable specification the simd versions
// (kernels/simd/vector_math.h) are tested against.
#pragma once

#include <cmath>

namespace forge::kernels::scalar {

inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// NeuralAmpModelerCore's fast_tanh (NAM/activations.h): a rational fit, max error about 2e-4.
inline float fast_tanh(float x) {
    const float ax = std::fabs(x);
    const float x2 = x * x;
    return x * (2.45550750702956f + 2.45550750702956f * ax + (0.893229853513558f + 0.821226666969744f * ax) * x2) /
           (2.44506634652299f + (2.44506634652299f + x2) * std::fabs(x + 0.814642734961073f * x * ax));
}

// Core's fast_sigmoid: sigmoid(x) = (tanh(x / 2) + 1) / 2 with fast_tanh.
inline float fast_sigmoid(float x) { return 0.5f * (fast_tanh(x * 0.5f) + 1.0f); }

}  // namespace forge::kernels::scalar
