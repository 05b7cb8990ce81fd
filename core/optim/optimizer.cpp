#include "core/optim/optimizer.h"

#include "core/autograd/grad_mode.h"
#include "core/autograd/variable.h"
#include "core/error.h"

namespace forge::optim {

Optimizer::Optimizer(std::vector<Tensor> params, float lr) : params_(std::move(params)), lr_(lr) {
    for (std::size_t i = 0; i < params_.size(); ++i) {
        const Tensor& p = params_[i];
        check(ag::requires_grad_of(p) && ag::is_leaf(p), "optimizer parameter {} is not a leaf that requires a gradient", i);
        check(p.is_contiguous() && p.dtype() == DType::F32, "optimizer parameter {} must be contiguous f32", i);
    }
}

void Optimizer::step() {
    ag::NoGradScope no_graph;
    ++step_;
    for (std::size_t i = 0; i < params_.size(); ++i) {
        const Tensor g = ag::grad(params_[i]);
        if (g.defined()) update(i, params_[i], g.contiguous());
    }
}

void Optimizer::zero_grad() { ag::zero_grad(params_); }

Tensor state_tensor(const OptimizerState& state, const std::string& name, const Shape& shape) {
    const auto it = state.tensors.find(name);
    check(it != state.tensors.end(), "optimizer state has no tensor '{}'", name);
    check(it->second.shape() == shape, "optimizer state '{}' has shape {}, the parameter {}", name,
          it->second.shape().to_string(), shape.to_string());
    return it->second.clone();
}

}  // namespace forge::optim
