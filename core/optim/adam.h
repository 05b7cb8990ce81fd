// Adam (L2 weight decay added to the gradient) and AdamW (decoupled weight decay), as
// torch.optim.Adam / AdamW.
#pragma once

#include "core/optim/optimizer.h"

namespace forge::optim {

struct AdamOptions {
    float lr = 1e-3f;
    float beta1 = 0.9f;
    float beta2 = 0.999f;
    float eps = 1e-8f;
    float weight_decay = 0.0f;
    bool decoupled = false;  // true: AdamW
};

class Adam : public Optimizer {
public:
    Adam(std::vector<Tensor> params, const AdamOptions& options);
    OptimizerState state() const override;
    void load_state(const OptimizerState& state) override;

private:
    void update(std::size_t index, const Tensor& param, const Tensor& grad) override;

    AdamOptions options_;
    std::vector<Tensor> exp_avg_, exp_avg_sq_;
    std::vector<std::int64_t> param_steps_;  // per parameter, like torch (a late first gradient starts at 1)
};

// AdamW with PyTorch's default weight decay of 0.01.
inline AdamOptions adamw_options(float lr, float weight_decay = 0.01f) {
    return {.lr = lr, .weight_decay = weight_decay, .decoupled = true};
}

}  // namespace forge::optim
