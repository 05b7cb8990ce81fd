// The spirals classifier: an MLP written with named axes,
//   [Sample, Coord] -> tanh -> [Sample, Hidden] -> tanh -> [Sample, Hidden2] -> [Sample, Class].
#pragma once

#include "core/named/ops.h"

#include <cstdint>
#include <span>
#include <vector>

namespace forge::spirals {

struct Sample {};
struct Coord {};
struct Hidden {};
struct Hidden2 {};
struct Class {};

using named::Axes;

struct SpiralsMlp {
    named::Tensor<Axes<Hidden, Coord>> w1;
    named::Tensor<Axes<Hidden>> b1;
    named::Tensor<Axes<Hidden2, Hidden>> w2;
    named::Tensor<Axes<Hidden2>> b2;
    named::Tensor<Axes<Class, Hidden2>> w3;
    named::Tensor<Axes<Class>> b3;

    // Initialized like PyTorch's nn.Linear (uniform ±1/sqrt(fan_in)) from a seed.
    static SpiralsMlp init(std::int64_t hidden, std::uint64_t seed);
    // The same shapes as `like`, as views into one flat vector of parameter_count() floats
    // (how evolution strategies hand each population member its parameters).
    static SpiralsMlp from_flat(const Tensor& flat, const SpiralsMlp& like);

    named::Tensor<Axes<Sample, Class>> logits(const named::Tensor<Axes<Sample, Coord>>& x) const;

    std::vector<Tensor> parameters() const;  // untyped, in a fixed order
    std::int64_t parameter_count() const;
    void mark_trainable();                   // every parameter becomes an autograd leaf
};

}  // namespace forge::spirals
