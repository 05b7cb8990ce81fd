// Muon: momentum whose update is orthogonalized by five Newton–Schulz iterations, for the
// matrix parameters; every other parameter (biases, norms: rank != 2) goes to an inner AdamW.
//
// Follows Keller Jordan's reference implementation (github.com/KellerJordan/Muon): Nesterov
// momentum by lerp, the quintic iteration with coefficients (3.4445, -4.7750, 2.0315) on the
// update scaled to spectral norm <= 1, a scale of sqrt(max(1, rows/cols)), decoupled weight
// decay. The reference runs the iteration in bf16; forge runs it in f32.
#pragma once

#include "core/optim/adam.h"
#include "core/optim/optimizer.h"

#include <memory>

namespace forge::optim {

struct MuonOptions {
    float lr = 0.02f;
    float momentum = 0.95f;
    float weight_decay = 0.0f;
    bool nesterov = true;
    int newton_schulz_steps = 5;
    AdamOptions adamw = {.lr = 3e-4f, .beta1 = 0.9f, .beta2 = 0.95f, .eps = 1e-10f, .weight_decay = 0.0f,
                         .decoupled = true};
};

class Muon : public Optimizer {
public:
    Muon(std::vector<Tensor> params, const MuonOptions& options);
    void step() override;  // the matrices, then the inner AdamW
    OptimizerState state() const override;
    void load_state(const OptimizerState& state) override;

    // The momentum can follow a schedule, as the learning rate does (nanochat warms it up).
    float momentum() const { return options_.momentum; }
    void set_momentum(float momentum) { options_.momentum = momentum; }

    // The AdamW that owns the parameters that are not matrices (null if there are none).
    Adam* adamw() { return adamw_.get(); }

private:
    void update(std::size_t index, const Tensor& param, const Tensor& grad) override;

    MuonOptions options_;
    std::vector<Tensor> momentum_;
    std::unique_ptr<Adam> adamw_;
    std::vector<bool> is_matrix_;
};

// The orthogonalization alone: approximately U·Vᵀ for G = U·S·Vᵀ (exposed for tests).
Tensor newton_schulz(const Tensor& g, int steps);

}  // namespace forge::optim
