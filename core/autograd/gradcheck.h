// Numerical verification of a VJP: compare the gradients backward() computes with central
// differences.
//
// The scalar checked is L = Σ w ⊙ f(inputs) with a fixed random cotangent w, so every output
// element's gradient is exercised at once. The analytic side is one backward(). The numeric
// side perturbs one input element at a time by ±eps and evaluates f with recording off;
// L is summed in double and the step is the one the f32 inputs actually took, so the only
// f32 error left is f's own rounding (forge's ops compute in f32). Keep inputs small: the
// cost is two forwards per input element.
#pragma once

#include "core/tensor.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace forge::ag {

// The defaults catch a VJP that is 1% off wherever |numeric| > 0.012 (test/core/autograd/
// engine_test.cpp checks that). What they must allow is the central difference's own error:
// f's f32 rounding over the step, about u * sum|w * y| / eps, and the truncation, about
// eps^2 / 6 times the third derivative. The worst measured over every gradcheck in the suite
// (both backends) is |analytic - numeric| = 1.3e-4, in a check whose largest |numeric| is 1.9;
// docs/TESTING.md lists the measurements.
struct GradcheckOptions {
    double eps = 5e-3;   // perturbation of each input element
    double rtol = 1e-3;  // |analytic - numeric| <= atol + rtol * |numeric|
    double atol = 1e-4;
    std::uint64_t seed = 1;  // of the cotangent w
};

struct GradcheckResult {
    bool ok = true;
    double worst_error = 0.0;  // largest |analytic - numeric| - rtol * |numeric| seen
    std::string report;        // the first mismatches, one line each
};

using DifferentiableFunction = std::function<Tensor(std::span<const Tensor>)>;

// Inputs marked requires_grad (f32 leaves) are checked; others are passed through unchanged.
GradcheckResult gradcheck(const DifferentiableFunction& f, std::vector<Tensor> inputs,
                          const GradcheckOptions& options = {});

}  // namespace forge::ag
