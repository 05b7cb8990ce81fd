#include "models/nam/engine.h"

#include "core/error.h"

#include <algorithm>

namespace forge::nam {

Engine::Engine(std::unique_ptr<Model> model, int max_block) : model_(std::move(model)), max_block_(max_block) {
    check(model_ != nullptr, "nam engine: no model");
    check(max_block_ >= 1, "nam engine: the maximum block size must be at least 1, got {}", max_block_);
    check(model_->in_channels() == 1 && model_->out_channels() == 1,
          "nam engine: plays mono models only; this one has {} input and {} output channels", model_->in_channels(),
          model_->out_channels());
    reset();
}

void Engine::reset() {
    const long prewarm = model_->prewarm_samples();
    check(prewarm >= 0 && prewarm <= kMaxPrewarmSamples,
          "the model asks for {} samples of prewarm, more than the {} forge runs (its receptive field is too large)",
          prewarm, kMaxPrewarmSamples);
    model_->prepare(max_block_);
    silence_.assign(static_cast<std::size_t>(max_block_), 0.0f);
    discard_.assign(static_cast<std::size_t>(max_block_), 0.0f);
    for (long done = 0; done < model_->prewarm_samples(); done += max_block_)
        model_->process({silence_.data(), max_block_}, {discard_.data(), max_block_}, max_block_);
}

void Engine::process(std::span<const float> in, std::span<float> out) noexcept {
    const auto frames = static_cast<int>(std::min<std::size_t>(in.size(), static_cast<std::size_t>(max_block_)));
    model_->process({in.data(), frames}, {out.data(), frames}, frames);
}

std::vector<float> render(Engine& engine, std::span<const float> input) {
    std::vector<float> output(input.size());
    const auto block = static_cast<std::size_t>(engine.max_block());
    for (std::size_t at = 0; at < input.size(); at += block) {
        const std::size_t n = std::min(block, input.size() - at);
        engine.process(input.subspan(at, n), std::span<float>(output).subspan(at, n));
    }
    return output;
}

}  // namespace forge::nam
