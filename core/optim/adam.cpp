#include "core/optim/adam.h"

#include "core/optim/elementwise_update.h"
#include "kernels/backend.h"
#include "kernels/optimizer.h"

#include <fmt/format.h>

#include <cmath>
#include <string>

namespace forge::optim {
namespace {

std::string key(const char* buffer, std::size_t index) { return fmt::format("{}.{}", buffer, index); }

}  // namespace

Adam::Adam(std::vector<Tensor> params, const AdamOptions& options)
    : Optimizer(std::move(params), options.lr),
      options_(options),
      exp_avg_(params_.size()),
      exp_avg_sq_(params_.size()),
      param_steps_(params_.size(), 0) {}

void Adam::update(std::size_t index, const Tensor& param, const Tensor& grad) {
    if (!exp_avg_[index].defined()) {
        exp_avg_[index] = Tensor::zeros(param.shape());
        exp_avg_sq_[index] = Tensor::zeros(param.shape());
    }
    const auto t = static_cast<double>(++param_steps_[index]);
    // The bias corrections as torch computes them: Python floats (double), then used as f32.
    const kernels::AdamStep step{lr_,
                                 options_.beta1,
                                 options_.beta2,
                                 options_.eps,
                                 options_.weight_decay,
                                 options_.decoupled,
                                 static_cast<float>(1.0 - std::pow(static_cast<double>(options_.beta1), t)),
                                 static_cast<float>(std::sqrt(1.0 - std::pow(static_cast<double>(options_.beta2), t)))};
    const auto p = param.span<float>();
    const auto g = grad.span<float>();
    const auto m = exp_avg_[index].span<float>(), v = exp_avg_sq_[index].span<float>();
    detail::for_chunks(param.numel(), [&](std::size_t offset, std::size_t count) {
        kernels::active::adam_update(step, p.subspan(offset, count), g.subspan(offset, count), m.subspan(offset, count),
                                     v.subspan(offset, count));
    });
}

OptimizerState Adam::state() const {
    OptimizerState s{step_, {}};
    for (std::size_t i = 0; i < params_.size(); ++i) {
        if (!exp_avg_[i].defined()) continue;
        s.tensors[key("exp_avg", i)] = exp_avg_[i];
        s.tensors[key("exp_avg_sq", i)] = exp_avg_sq_[i];
        s.tensors[key("step", i)] = Tensor::full(Shape{}, static_cast<float>(param_steps_[i]));
    }
    return s;
}

void Adam::load_state(const OptimizerState& state) {
    step_ = state.step;
    for (std::size_t i = 0; i < params_.size(); ++i) {
        if (!state.tensors.count(key("exp_avg", i))) {
            exp_avg_[i] = exp_avg_sq_[i] = Tensor{};
            param_steps_[i] = 0;
            continue;
        }
        exp_avg_[i] = state_tensor(state, key("exp_avg", i), params_[i].shape());
        exp_avg_sq_[i] = state_tensor(state, key("exp_avg_sq", i), params_[i].shape());
        param_steps_[i] = static_cast<std::int64_t>(state_tensor(state, key("step", i), Shape{}).item());
    }
}

}  // namespace forge::optim
