// Reverse-mode differentiation: run the VJPs of every node that `output` depends on.
#pragma once

#include "core/autograd/autograd_meta.h"
#include "core/tensor.h"

#include <functional>

namespace forge::ag {

// Propagate d(output)/d(output) = grad_output (default: ones, which needs a one-element
// output, e.g. a loss) back through the graph and add the result into every leaf's grad.
//
// Scheduling: each node waits for a dependency count of its consumers inside this graph; the
// nodes that are ready together form a wave and run in parallel on the global thread pool,
// then their gradients are summed into their inputs in a fixed order, so results are
// bitwise identical for any thread count. Each node's saved tensors are released right
// after it runs; a second backward through the same graph is an Error naming the op.
//
// on_final_gradient, when given, is called (on the calling thread, between waves) for each
// leaf as soon as every node of this graph that uses it has added its term: the leaf's
// gradient is then final for this backward, while the rest of the graph still runs. This is
// where data-parallel training starts reducing a bucket of gradients (core/distributed/).
using FinalGradientFn = std::function<void(const AutogradMeta& leaf)>;
void backward(const Tensor& output, const Tensor& grad_output = Tensor{},
              const FinalGradientFn& on_final_gradient = {});

}  // namespace forge::ag
