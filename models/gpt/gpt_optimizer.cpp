#include "models/gpt/gpt_optimizer.h"

#include "core/optim/clip.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace forge::gpt {
namespace {

optim::AdamOptions nanochat_adamw(float lr) {
    return {.lr = lr, .beta1 = 0.8f, .beta2 = 0.95f, .eps = 1e-10f, .weight_decay = 0.0f, .decoupled = true};
}

void add_prefixed(optim::OptimizerState& out, const std::string& prefix, const optim::OptimizerState& part) {
    for (const auto& [name, t] : part.tensors) out.tensors[prefix + name] = t;
}

optim::OptimizerState take_prefixed(const optim::OptimizerState& all, const std::string& prefix) {
    optim::OptimizerState part{all.step, {}};
    for (const auto& [name, t] : all.tensors) {
        if (name.rfind(prefix, 0) == 0) part.tensors[name.substr(prefix.size())] = t;
    }
    return part;
}

}  // namespace

float muon_momentum(std::int64_t step) {
    const float frac = std::min(static_cast<float>(step) / 300.0f, 1.0f);
    return (1.0f - frac) * 0.85f + frac * 0.95f;
}

GptOptimizer::GptOptimizer(const GptModel& model, const OptimizerConfig& config, std::int64_t batch_tokens,
                           std::int64_t total_steps)
    : config_(config), total_steps_(total_steps), all_(model.params().trainable()) {
    const float batch_scale =
        std::sqrt(static_cast<float>(batch_tokens) / static_cast<float>(config.reference_batch_tokens));
    const float width_scale = 1.0f / std::sqrt(static_cast<float>(model.config().width()) / 768.0f);
    matrix_lr_ = config.matrix_lr * batch_scale;
    embedding_lr_ = config.embedding_lr * batch_scale * width_scale;
    unembedding_lr_ = config.unembedding_lr * batch_scale * width_scale;
    optim::MuonOptions muon;
    muon.lr = matrix_lr_;
    muon.momentum = muon_momentum(0);
    muon_ = std::make_unique<optim::Muon>(model.block_matrices(), muon);
    embedding_ = std::make_unique<optim::Adam>(std::vector<Tensor>{model.embedding_table()}, nanochat_adamw(embedding_lr_));
    head_ = std::make_unique<optim::Adam>(std::vector<Tensor>{model.head_weight()}, nanochat_adamw(unembedding_lr_));
}

void GptOptimizer::zero_grad() {
    muon_->zero_grad();
    embedding_->zero_grad();
    head_->zero_grad();
}

float GptOptimizer::step(std::int64_t step) {
    // Without clipping the norm is still measured (and logged); an infinite bound never scales.
    const float norm = optim::clip_grad_norm(all_, config_.grad_clip > 0.0f ? config_.grad_clip : INFINITY);
    const float m = lr_multiplier(config_.schedule, step, total_steps_);
    muon_->set_lr(matrix_lr_ * m);
    muon_->set_momentum(muon_momentum(step));
    embedding_->set_lr(embedding_lr_ * m);
    head_->set_lr(unembedding_lr_ * m);
    muon_->step();
    embedding_->step();
    head_->step();
    return norm;
}

optim::OptimizerState GptOptimizer::state() const {
    optim::OptimizerState s{muon_->steps_taken(), {}};
    add_prefixed(s, "muon.", muon_->state());
    add_prefixed(s, "embedding.", embedding_->state());
    add_prefixed(s, "head.", head_->state());
    return s;
}

void GptOptimizer::load_state(const optim::OptimizerState& state) {
    muon_->load_state(take_prefixed(state, "muon."));
    embedding_->load_state(take_prefixed(state, "embedding."));
    head_->load_state(take_prefixed(state, "head."));
}

}  // namespace forge::gpt
