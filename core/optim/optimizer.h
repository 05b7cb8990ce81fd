// The optimizer interface: a set of parameters (autograd leaves) updated in place from their
// accumulated gradients.
//
// A step reads ag::grad(p) of each parameter and skips those without one; it never builds a
// graph. The learning rate can be changed between steps (schedules, core/optim/schedule.h).
// state()/load_state() expose every buffer and the step count, so a checkpoint can resume
// training bit-exactly (core/checkpoint/).
#pragma once

#include "core/tensor.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace forge::optim {

struct OptimizerState {
    std::int64_t step = 0;
    std::map<std::string, Tensor> tensors;  // e.g. "exp_avg.3": buffer of parameter 3
};

class Optimizer {
public:
    Optimizer(std::vector<Tensor> params, float lr);
    virtual ~Optimizer() = default;
    Optimizer(const Optimizer&) = delete;
    Optimizer& operator=(const Optimizer&) = delete;

    virtual void step();  // one update of every parameter that has a gradient
    void zero_grad();     // forget the accumulated gradients

    float lr() const { return lr_; }
    void set_lr(float lr) { lr_ = lr; }
    std::int64_t steps_taken() const { return step_; }
    const std::vector<Tensor>& params() const { return params_; }

    virtual OptimizerState state() const = 0;
    virtual void load_state(const OptimizerState& state) = 0;

protected:
    // Update parameter `index` from its gradient; step_ already counts this step.
    virtual void update(std::size_t index, const Tensor& param, const Tensor& grad) = 0;

    std::vector<Tensor> params_;
    float lr_;
    std::int64_t step_ = 0;
};

// Helpers for implementations: a state buffer by name (throwing if a checkpoint lacks it).
Tensor state_tensor(const OptimizerState& state, const std::string& name, const Shape& shape);

}  // namespace forge::optim
