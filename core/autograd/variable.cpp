#include "core/autograd/variable.h"

#include "core/autograd/grad_mode.h"
#include "core/error.h"

#include <vector>

namespace forge::ag {
namespace {

Tensor attach(std::string_view name, Tensor result, std::vector<const Tensor*> inputs, Vjp vjp) {
    check(inputs.size() <= 32, "op '{}' has {} inputs; a node takes at most 32", name, inputs.size());
    auto node = std::make_shared<Node>();
    node->name = name;
    node->vjp = std::move(vjp);
    for (const Tensor* input : inputs) {
        const bool wanted = requires_grad_of(*input);
        node->inputs.push_back(wanted ? input->autograd_meta() : nullptr);
        node->input_shapes.push_back(input->shape());
    }
    auto meta = std::make_shared<AutogradMeta>();
    meta->requires_grad = true;
    meta->grad_fn = std::move(node);
    result.set_autograd_meta(std::move(meta));
    return result;
}

}  // namespace

Tensor requires_grad(Tensor x, bool enabled) {
    check(x.defined(), "requires_grad on an undefined tensor");
    check(!enabled || x.dtype() == DType::F32, "only f32 tensors can require a gradient, got {}",
          dtype_name(x.dtype()));
    if (!x.autograd_meta()) x.set_autograd_meta(std::make_shared<AutogradMeta>());
    if (x.autograd_meta()->grad_fn) {
        fail("requires_grad applies to leaves; this tensor is the result of op '{}'", x.autograd_meta()->grad_fn->name);
    }
    x.autograd_meta()->requires_grad = enabled;
    return x;
}

bool requires_grad_of(const Tensor& x) { return x.autograd_meta() && x.autograd_meta()->requires_grad; }

bool is_leaf(const Tensor& x) { return !x.autograd_meta() || x.autograd_meta()->grad_fn == nullptr; }

Tensor grad(const Tensor& x) {
    if (!is_leaf(x)) {
        fail("grad() of a non-leaf tensor (made by op '{}'): only leaves accumulate gradients",
             x.autograd_meta()->grad_fn->name);
    }
    return x.autograd_meta() ? x.autograd_meta()->grad : Tensor{};
}

void zero_grad(std::span<const Tensor> leaves) {
    for (const Tensor& leaf : leaves) {
        if (leaf.autograd_meta()) leaf.autograd_meta()->grad = Tensor{};
    }
}

void zero_grad(std::initializer_list<Tensor> leaves) { zero_grad(std::span<const Tensor>(leaves.begin(), leaves.size())); }

void set_grad(const Tensor& x, Tensor gradient) {
    check(requires_grad_of(x) && is_leaf(x), "set_grad needs a leaf that requires a gradient");
    check(!gradient.defined() || gradient.shape() == x.shape(), "set_grad: gradient shape {} differs from {}",
          gradient.shape().to_string(), x.shape().to_string());
    x.autograd_meta()->grad = std::move(gradient);
}

Tensor detach(const Tensor& x) {
    Tensor copy = x;
    copy.set_autograd_meta(nullptr);
    return copy;
}

bool any_requires_grad(std::initializer_list<const Tensor*> inputs) {
    if (!grad_enabled()) return false;
    for (const Tensor* input : inputs) {
        if (requires_grad_of(*input)) return true;
    }
    return false;
}

Tensor record(std::string_view name, Tensor result, std::initializer_list<const Tensor*> inputs, Vjp vjp) {
    return attach(name, std::move(result), std::vector<const Tensor*>(inputs),
                  std::move(vjp));
}

Tensor record(std::string_view name, Tensor result, std::span<const Tensor> inputs, Vjp vjp) {
    std::vector<const Tensor*> pointers;
    for (const Tensor& input : inputs) pointers.push_back(&input);
    return attach(name, std::move(result), std::move(pointers), std::move(vjp));
}

}  // namespace forge::ag
