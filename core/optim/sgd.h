// Stochastic gradient descent with momentum, Nesterov momentum and L2 weight decay, as
// torch.optim.SGD.
#pragma once

#include "core/optim/optimizer.h"

namespace forge::optim {

struct SgdOptions {
    float lr = 0.1f;
    float momentum = 0.0f;
    float dampening = 0.0f;
    float weight_decay = 0.0f;
    bool nesterov = false;
};

class Sgd : public Optimizer {
public:
    Sgd(std::vector<Tensor> params, const SgdOptions& options);
    OptimizerState state() const override;
    void load_state(const OptimizerState& state) override;

private:
    void update(std::size_t index, const Tensor& param, const Tensor& grad) override;

    SgdOptions options_;
    std::vector<Tensor> momentum_;  // undefined until a parameter's first step
};

}  // namespace forge::optim
