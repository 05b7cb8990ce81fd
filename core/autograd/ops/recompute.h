// Activation recomputation ("gradient checkpointing", Chen et al. 2016): y = f(inputs) with
// none of f's intermediates kept for the backward pass. The forward runs f without recording;
// the backward runs f again, with gradients, on the saved inputs and backpropagates the
// incoming gradient through that fresh graph. Memory then holds a segment's inputs instead of
// everything its ops save, for the price of a second forward of the segment: what lets a
// 28-layer model train in a fixed, small budget (models/llm/lora/).
//
// f must be a pure function of its inputs: the same values in, the same values out (dropout
// keyed by its coordinates is, core/autograd/ops/dropout.h). Gradients reach the inputs as
// from any op, so parameters among them accumulate as usual.
#pragma once

#include "core/tensor.h"

#include <functional>
#include <span>
#include <vector>

namespace forge::ag {

using Segment = std::function<Tensor(std::span<const Tensor> inputs)>;

Tensor recompute(const Segment& f, std::vector<Tensor> inputs);

}  // namespace forge::ag
