// Two training steps of a small GPT against PyTorch (tools/make_gpt_step_golden.py): the
// loss, every parameter's gradient, the clipped gradient norm, and the parameters after
// the Muon and AdamW updates.
#include "core/autograd/ag.h"
#include "core/checkpoint/safetensors.h"
#include "core/ops/binary.h"
#include "models/gpt/gpt_model.h"
#include "models/gpt/gpt_optimizer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace forge::gpt {
namespace {

checkpoint::TensorMap with_prefix(const checkpoint::TensorMap& all, const std::string& prefix) {
    checkpoint::TensorMap out;
    for (const auto& [name, t] : all) {
        if (name.rfind(prefix, 0) == 0) out[name.substr(prefix.size())] = t;
    }
    return out;
}

// The largest |got - want| relative to the largest |want| of the tensor.
double relative_error(const Tensor& got, const Tensor& want) {
    const auto g = got.contiguous().to_vector(), w = want.contiguous().to_vector();
    double worst = 0.0, scale = 0.0;
    for (std::size_t i = 0; i < g.size(); ++i) {
        worst = std::max(worst, std::fabs(static_cast<double>(g[i]) - w[i]));
        scale = std::max(scale, std::fabs(static_cast<double>(w[i])));
    }
    return worst / scale;
}

Tensor step_loss(const GptModel& model, const Tensor& tokens) {
    const std::int64_t b = tokens.size(0), t = tokens.size(1) - 1;
    const Tensor ids = tokens.narrow(1, 0, t).contiguous(), targets = tokens.narrow(1, 1, t).contiguous();
    return ag::cross_entropy(ag::reshape(model.forward(ids), Shape{b * t, model.config().vocab}),
                             targets.reshape(Shape{b * t}));
}

TEST(GptTorchGolden, TwoStepsOfMuonAndAdamW) {
    checkpoint::Metadata meta;
    const auto golden =
        checkpoint::read_safetensors(std::string(FORGE_TEST_DATA_DIR) + "/gpt/train_step.safetensors", &meta);
    const Tensor tokens = golden.at("tokens");
    GptConfig config;
    config.depth = std::stoll(meta.at("depth"));
    config.head_dim = std::stoll(meta.at("head_dim"));
    config.vocab = golden.at("init.token_embd.weight").size(0);
    config.context = tokens.size(1) - 1;
    GptModel model(config, 0);
    model.params().load_state_dict(with_prefix(golden, "init."), "train_step.safetensors");
    GptOptimizer optimizer(model, OptimizerConfig{}, tokens.size(0) * config.context,
                           std::stoll(meta.at("total_steps")));

    const auto grads = with_prefix(golden, "grad."), after = with_prefix(golden, "after.");
    for (int step = 0; step < 2; ++step) {
        optimizer.zero_grad();
        const Tensor loss = step_loss(model, tokens);
        ag::backward(loss);
        const double want_loss = std::stod(meta.at("loss." + std::to_string(step)));
        // Measured: equal (simd), 1.0e-7 relative (scalar).
        EXPECT_NEAR(loss.item(), want_loss, 1e-6 * want_loss) << "step " << step;
        if (step == 0) {
            for (const auto& [name, want] : grads) {
                // Measured: at most 5.8e-7 (simd), 4.8e-7 (scalar).
                EXPECT_LT(relative_error(ag::grad(model.params().at(name)), want), 6e-6) << name;
            }
        }
        const float norm = optimizer.step(step);
        const double want_norm = std::stod(meta.at("grad_norm." + std::to_string(step)));
        EXPECT_NEAR(norm, want_norm, 2e-6 * want_norm) << "step " << step;  // measured 1.3e-7 (both backends)
    }
    const auto init = with_prefix(golden, "init.");
    for (const auto& [name, want] : after) {
        // Compare the change the two updates made, relative to its own size. Measured: 6.3e-4
        // (simd), 5.9e-4 (scalar) for Muon's matrices, 1e-4 and less for AdamW's: the quintic
        // Newton-Schulz iteration multiplies the directions of small singular values by about
        // 3.4 per step (3.4^5 ~ 500 over five), so the gradients' 5e-7 disagreement grows.
        const Tensor got_delta = model.params().at(name) - init.at(name);
        const Tensor want_delta = want - init.at(name);
        EXPECT_LT(relative_error(got_delta, want_delta), 6e-3) << name;
    }
}

}  // namespace
}  // namespace forge::gpt
