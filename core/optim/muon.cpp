#include "core/optim/muon.h"

#include "core/autograd/variable.h"
#include "core/ops/binary.h"
#include "core/ops/matmul.h"
#include "core/ops/reduce.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include <string>

namespace forge::optim {
namespace {

std::vector<Tensor> non_matrices(const std::vector<Tensor>& params) {
    std::vector<Tensor> out;
    for (const Tensor& p : params) {
        if (p.rank() != 2) out.push_back(p);
    }
    return out;
}

// Overwrite p's elements with `value` (same shape): parameters are updated in place, so
// every handle the model holds sees the new values.
void assign(const Tensor& p, const Tensor& value) {
    const Tensor v = value.contiguous();
    std::copy(v.span<float>().begin(), v.span<float>().end(), p.span<float>().begin());
}

}  // namespace

Tensor newton_schulz(const Tensor& g, int steps) {
    constexpr float a = 3.4445f, b = -4.7750f, c = 2.0315f;
    const bool tall = g.size(0) > g.size(1);
    Tensor x = tall ? g.transpose(0, 1).contiguous() : g.contiguous();
    const float norm = std::sqrt(forge::sum(forge::mul(x, x).reshape(Shape{x.numel()}), 0).item());
    x = x / (norm + 1e-7f);
    for (int i = 0; i < steps; ++i) {
        const Tensor gram = matmul(x, x, false, true);                 // A = X·Xᵀ
        const Tensor poly = gram * b + matmul(gram, gram) * c;          // B = bA + cA²
        x = x * a + matmul(poly, x);                                    // X = aX + B·X
    }
    return tall ? x.transpose(0, 1).contiguous() : x;
}

Muon::Muon(std::vector<Tensor> params, const MuonOptions& options)
    : Optimizer(std::move(params), options.lr), options_(options), momentum_(params_.size()) {
    for (const Tensor& p : params_) is_matrix_.push_back(p.rank() == 2);
    auto others = non_matrices(params_);
    if (!others.empty()) adamw_ = std::make_unique<Adam>(std::move(others), options.adamw);
}

void Muon::step() {
    Optimizer::step();
    if (adamw_) adamw_->step();
}

void Muon::update(std::size_t index, const Tensor& param, const Tensor& grad) {
    if (!is_matrix_[index]) return;  // the inner AdamW's
    if (!momentum_[index].defined()) momentum_[index] = Tensor::zeros(param.shape());
    Tensor& m = momentum_[index];
    const float beta = options_.momentum;
    m = m + (grad - m) * (1.0f - beta);                                   // momentum.lerp_(grad, 1 - beta)
    const Tensor direction = options_.nesterov ? grad + (m - grad) * beta : m;  // grad.lerp_(momentum, beta)
    const float shape_scale =
        std::sqrt(std::max(1.0f, static_cast<float>(param.size(0)) / static_cast<float>(param.size(1))));
    const Tensor update = newton_schulz(direction, options_.newton_schulz_steps) * shape_scale;
    Tensor p = param;
    if (options_.weight_decay != 0.0f) p = p * (1.0f - lr_ * options_.weight_decay);
    assign(param, p + update * (-lr_));
}

OptimizerState Muon::state() const {
    OptimizerState s{step_, {}};
    for (std::size_t i = 0; i < momentum_.size(); ++i) {
        if (momentum_[i].defined()) s.tensors[fmt::format("momentum.{}", i)] = momentum_[i];
    }
    if (adamw_) {
        const OptimizerState inner = adamw_->state();
        for (const auto& [name, t] : inner.tensors) s.tensors[fmt::format("adamw.{}", name)] = t;
    }
    return s;
}

void Muon::load_state(const OptimizerState& state) {
    step_ = state.step;
    for (std::size_t i = 0; i < momentum_.size(); ++i) {
        const std::string name = fmt::format("momentum.{}", i);
        momentum_[i] = state.tensors.count(name) ? state_tensor(state, name, params_[i].shape()) : Tensor{};
    }
    if (adamw_) {
        OptimizerState inner{state.step, {}};
        for (const auto& [name, t] : state.tensors) {
            if (name.rfind("adamw.", 0) == 0) inner.tensors[name.substr(6)] = t;
        }
        adamw_->load_state(inner);
    }
}

}  // namespace forge::optim
