// nanochat's optimizer recipe for the GPT: Muon for the matrices inside the blocks, AdamW
// for the embedding and for the head, each with its own learning rate, all following one
// schedule (lr_schedule.h: constant after an optional warmup, then a linear warmdown), with the gradients
// clipped to a global norm before every step.
//
// Learning rates scale like nanochat's: AdamW rates by (width / 768)^-0.5 (they were tuned
// at width 768), every rate by (batch tokens / 2^19)^0.5 (tuned at a batch of 2^19 tokens).
// Muon's momentum warms up from 0.85 to 0.95 over the first 300 steps.
#pragma once

#include "core/optim/adam.h"
#include "core/optim/muon.h"
#include "core/optim/optimizer.h"
#include "models/gpt/gpt_model.h"
#include "models/gpt/lr_schedule.h"

#include <cstdint>
#include <memory>

namespace forge::gpt {

struct OptimizerConfig {
    float matrix_lr = 0.02f;
    float embedding_lr = 0.2f;
    float unembedding_lr = 0.004f;
    float grad_clip = 1.0f;  // 0: no clipping
    LrSchedule schedule;
    std::int64_t reference_batch_tokens = std::int64_t{1} << 19;
};

// Muon's momentum at `step`.
float muon_momentum(std::int64_t step);

class GptOptimizer {
public:
    GptOptimizer(const GptModel& model, const OptimizerConfig& config, std::int64_t batch_tokens,
                 std::int64_t total_steps);

    void zero_grad();
    // Clip, set this step's rates, update every parameter. Returns the gradient norm before clipping.
    float step(std::int64_t step);

    // The rates (before the schedule's multiplier) and this step's multiplied matrix rate.
    float matrix_lr() const { return matrix_lr_; }
    float embedding_lr() const { return embedding_lr_; }
    float unembedding_lr() const { return unembedding_lr_; }

    // Every buffer of the three optimizers ("muon.", "embedding.", "head." prefixes).
    optim::OptimizerState state() const;
    void load_state(const optim::OptimizerState& state);

private:
    OptimizerConfig config_;
    std::int64_t total_steps_;
    std::vector<Tensor> all_;
    float matrix_lr_, embedding_lr_, unembedding_lr_;
    std::unique_ptr<optim::Muon> muon_;
    std::unique_ptr<optim::Adam> embedding_, head_;
};

}  // namespace forge::gpt
