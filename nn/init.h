// How a parameter starts: zeros, ones, or random values drawn from core/random's counter-based
// generator with a key derived from (seed, parameter name). A parameter's initial values
// therefore depend only on the seed, its name and its shape: adding, removing or reordering
// other parameters never changes them, and any thread count gives the same model.
#pragma once

#include "core/tensor.h"

#include <cstdint>
#include <string_view>

namespace forge::nn {

struct Init {
    enum class Kind { Zeros, Ones, Normal, Uniform };
    Kind kind = Kind::Zeros;
    float scale = 0.0f;  // Normal: standard deviation; Uniform: the bound b of U(-b, b)

    static Init zeros() { return {Kind::Zeros, 0.0f}; }
    static Init ones() { return {Kind::Ones, 0.0f}; }
    static Init normal(float stddev) { return {Kind::Normal, stddev}; }
    static Init uniform(float bound) { return {Kind::Uniform, bound}; }
    // PyTorch's nn.Linear default: U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
    static Init fan_in_uniform(std::int64_t fan_in);
};

// The random stream of parameter `name` under `seed` (FNV-1a of the name, mixed with the seed).
std::uint64_t parameter_key(std::uint64_t seed, std::string_view name);

// A fresh f32 tensor of `shape` filled as `init` says, from the stream `key`.
Tensor init_tensor(const Shape& shape, const Init& init, std::uint64_t key);

}  // namespace forge::nn
