// The gradient bookkeeping behind a Tensor: what forge::ag hangs on Tensor's autograd slot.
//
// There is no global tape. A tensor computed by a differentiable op that saw an input needing
// a gradient carries a meta whose grad_fn is the Node that made it; that node holds the metas
// of its inputs, and so on down to the leaves (parameters), whose meta holds the accumulated
// gradient. The live tensors *are* the graph: dropping the last handle to a result frees the
// nodes (and the tensors they saved) that only it reached.
#pragma once

#include "core/shape.h"
#include "core/tensor.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

namespace forge::ag {

struct Node;

struct AutogradMeta {
    bool requires_grad = false;     // a leaf that wants .grad, or any result of a recorded op
    std::shared_ptr<Node> grad_fn;  // the op that produced this tensor; null for leaves
    Tensor grad;                    // leaves only: the sum of every backward() so far
};

// Which inputs of a node want a gradient: a VJP may skip the work for the others.
class InputMask {
public:
    InputMask() = default;
    explicit InputMask(std::uint32_t bits) : bits_(bits) {}
    bool operator[](std::size_t input) const { return (bits_ >> input) & 1u; }

private:
    std::uint32_t bits_ = 0;
};

// The vector-Jacobian product of one op: given dL/d(output), return dL/d(input) for each
// input, in order (an undefined Tensor where no gradient is wanted or it is zero).
using Vjp = std::function<std::vector<Tensor>(const Tensor& grad_output, InputMask wanted)>;

// One recorded op. Built by record() (core/autograd/variable.h) and consumed exactly once by
// backward(), which then drops the VJP and with it every tensor the op saved.
struct Node {
    std::string_view name;                             // the op, for error messages
    std::vector<std::shared_ptr<AutogradMeta>> inputs;  // null: that input needs no gradient
    std::vector<Shape> input_shapes;                   // to check what the VJP returns
    Vjp vjp;
    bool consumed = false;
};

}  // namespace forge::ag
