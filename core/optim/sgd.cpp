#include "core/optim/sgd.h"

#include "core/error.h"
#include "core/optim/elementwise_update.h"
#include "kernels/backend.h"
#include "kernels/optimizer.h"

#include <fmt/format.h>

#include <string>

namespace forge::optim {

Sgd::Sgd(std::vector<Tensor> params, const SgdOptions& options)
    : Optimizer(std::move(params), options.lr), options_(options), momentum_(params_.size()) {
    check(!options.nesterov || (options.momentum > 0.0f && options.dampening == 0.0f),
          "Nesterov momentum needs momentum > 0 and dampening 0");
}

void Sgd::update(std::size_t index, const Tensor& param, const Tensor& grad) {
    const bool first = !momentum_[index].defined();
    if (options_.momentum != 0.0f && first) momentum_[index] = Tensor::zeros(param.shape());
    const kernels::SgdStep step{lr_, options_.momentum, options_.dampening, options_.weight_decay, options_.nesterov,
                                first};
    const auto p = param.span<float>();
    const auto g = grad.span<float>();
    const auto buffer = options_.momentum != 0.0f ? momentum_[index].span<float>() : std::span<float>{};
    detail::for_chunks(param.numel(), [&](std::size_t offset, std::size_t count) {
        kernels::active::sgd_update(step, p.subspan(offset, count), g.subspan(offset, count),
                                    buffer.empty() ? buffer : buffer.subspan(offset, count));
    });
}

OptimizerState Sgd::state() const {
    OptimizerState s{step_, {}};
    for (std::size_t i = 0; i < momentum_.size(); ++i) {
        if (momentum_[i].defined()) s.tensors[fmt::format("momentum.{}", i)] = momentum_[i];
    }
    return s;
}

void Sgd::load_state(const OptimizerState& state) {
    step_ = state.step;
    for (std::size_t i = 0; i < momentum_.size(); ++i) {
        const std::string name = fmt::format("momentum.{}", i);
        momentum_[i] = state.tensors.count(name) ? state_tensor(state, name, params_[i].shape()) : Tensor{};
    }
}

}  // namespace forge::optim
