// Tensors as variables of differentiation: marking leaves, reading gradients, and recording a
// differentiable op's result (used by the op wrappers in core/autograd/ops/).
#pragma once

#include "core/autograd/autograd_meta.h"
#include "core/tensor.h"

#include <initializer_list>
#include <span>
#include <string_view>

namespace forge::ag {

// Mark x as a leaf that accumulates a gradient (every copy of the handle shares the mark).
// Returns x for chaining: `Tensor w = ag::requires_grad(Tensor::zeros({3, 4}));`
Tensor requires_grad(Tensor x, bool enabled = true);

bool requires_grad_of(const Tensor& x);  // a marked leaf or the result of a recorded op
bool is_leaf(const Tensor& x);           // not produced by a recorded op

// The gradient accumulated into leaf x by backward() (undefined if none has arrived yet).
Tensor grad(const Tensor& x);
// Forget the accumulated gradient of each leaf (PyTorch's zero_grad(set_to_none=True)).
void zero_grad(std::span<const Tensor> leaves);
void zero_grad(std::initializer_list<Tensor> leaves);
// Overwrite the gradient of leaf x (used by gradient clipping and tests).
void set_grad(const Tensor& x, Tensor gradient);

// The same values with no autograd history: later ops treat it as a constant.
Tensor detach(const Tensor& x);

// Does an op with these inputs need to record a node? (grad mode on and any input needs one)
bool any_requires_grad(std::initializer_list<const Tensor*> inputs);

// Attach a node to `result` computed from `inputs`; vjp returns one gradient per input.
// Call only when any_requires_grad() said yes. The VJP must not capture `result`'s handle
// with its meta (that would be a cycle): capture detach(result) instead.
Tensor record(std::string_view name, Tensor result, std::initializer_list<const Tensor*> inputs, Vjp vjp);
Tensor record(std::string_view name, Tensor result, std::span<const Tensor> inputs, Vjp vjp);

}  // namespace forge::ag
