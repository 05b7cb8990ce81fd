#include "models/gpt/gpt_model.h"

#include "core/autograd/grad_mode.h"
#include "core/error.h"

#include <cmath>
#include <fmt/format.h>

namespace forge::gpt {
namespace {

nn::TransformerBlockConfig block_config(const GptConfig& c) {
    nn::TransformerBlockConfig b;
    b.attention = {.dim = c.width(),
                   .n_head = c.n_head(),
                   .n_kv_head = c.n_head(),
                   .head_dim = c.head_size(),
                   .rope_base = c.rope_base,
                   .rope_mode = RopeMode::Neox,
                   .qk_norm = true,
                   .learnable_qk_norm = false,
                   .norm_eps = c.norm_eps};
    b.mlp = {.dim = c.width(), .hidden = c.ff_hidden(), .activation = nn::MlpActivation::SwiGLU};
    b.norm_eps = c.norm_eps;
    b.learnable_norms = false;
    return b;
}

}  // namespace

GptModel::GptModel(const GptConfig& config, std::uint64_t seed) : config_(config), params_(seed) {
    config_.validate();
    const std::int64_t d = config_.width();
    embedding_ = nn::Embedding::make(params_, "token_embd", config_.vocab, d, nn::Init::normal(1.0f));
    embedding_norm_ = nn::RmsNorm{Tensor{}, config_.norm_eps};
    const float bound = std::sqrt(3.0f / static_cast<float>(d));
    const nn::TransformerBlockInit init{nn::Init::uniform(bound), nn::Init::zeros()};
    const auto block = block_config(config_);
    for (std::int64_t i = 0; i < config_.depth; ++i) {
        blocks_.push_back(nn::TransformerBlock::make(params_, fmt::format("blk.{}.", i), block, init));
    }
    final_norm_ = nn::RmsNorm{Tensor{}, config_.norm_eps};
    head_ = nn::Linear::make(params_, "output", d, config_.vocab, nn::Init::normal(0.001f));
}

Tensor GptModel::forward(const Tensor& ids) const {
    check(ids.rank() == 2 && ids.size(1) <= config_.context, "GPT input: want ids [B, T<={}], got {}",
          config_.context, ids.shape().to_string());
    Tensor x = embedding_norm_(embedding_(ids));
    for (const auto& block : blocks_) x = block(x);
    return head_(final_norm_(x));
}

std::vector<Tensor> GptModel::block_matrices() const {
    std::vector<Tensor> out;
    for (const auto& p : params_.all()) {
        if (p.trainable && p.name.rfind("blk.", 0) == 0 && p.value.rank() == 2) out.push_back(p.value);
    }
    return out;
}

Tensor GptModel::normalized_embedding() const {
    ag::NoGradScope no_grad;
    return embedding_norm_(embedding_.table);
}

}  // namespace forge::gpt
