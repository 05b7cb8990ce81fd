// Training an LSTM: the differentiable model exports in Core's LSTM weight order, so the
// real-time engine plays exactly what the training model computes; the training pass is
// the reference's (burn-in, then truncated chunks).
#include "core/autograd/ag.h"
#include "core/optim/adam.h"
#include "models/nam/engine.h"
#include "models/nam/factory.h"
#include "models/nam/nam_writer.h"
#include "models/nam/train/trainable_lstm.h"

#include "test/models/nam/train_signals.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

namespace forge::nam::train {
namespace {

using testing::chirp;

Tensor row_of(const std::vector<float>& x) {
    return Tensor::from(std::span<const float>(x), {1, static_cast<std::int64_t>(x.size())});
}

// Train a few steps (through the burn-in and several truncated chunks), export, load with
// models/nam, render: the engine starts from the exported state, prewarms with zeros, then
// plays; the training model run from the same state on the same zeros + input must agree.
void expect_export_parity(Preset preset) {
    TrainableLstm model(lstm_preset(preset), 3);
    const std::vector<float> x = chirp(6000);
    optim::Adam adam(model.parameters().trainable(), {.lr = 0.01f});
    for (int step = 0; step < 3; ++step) {
        ag::backward(ag::mse(model.forward_train(row_of(x)), row_of(std::vector<float>(x.size(), 0.1f))));
        adam.step();
        adam.zero_grad();
    }
    const auto path = std::filesystem::temp_directory_path() / "forge_train_lstm_export_test.nam";
    write_nam_file(path, model.to_nam_file(48000.0));
    const NamFile file = read_nam_file(path);
    std::filesystem::remove(path);
    Engine engine(make_model(file), 64);
    const std::vector<float> rendered = render(engine, x);

    // The engine's prewarm: whole blocks of zeros covering Core's half second.
    const long prewarm = (engine.model().prewarm_samples() + 63) / 64 * 64;
    std::vector<float> warm_then_x(static_cast<std::size_t>(prewarm), 0.0f);
    warm_then_x.insert(warm_then_x.end(), x.begin(), x.end());
    ag::NoGradScope no_grad;
    TrainableLstm::State state = model.exported_state();
    const auto expected = model.forward_from(row_of(warm_then_x), state).contiguous().to_vector();
    double worst = 0.0, peak = 1.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double e = expected[i + static_cast<std::size_t>(prewarm)];
        worst = std::max(worst, std::abs(e - rendered[i]));
        peak = std::max(peak, std::abs(e));
    }
    EXPECT_LT(worst / peak, 1e-5) << preset_name(preset);
}

// nn.LSTM's names per layer, the learned initial state at zero, and the reference's gate-bias
// shift on top of U(±1/sqrt(H)): input gate -2, forget gate +2.
TEST(NamTrainLstm, ParametersAreNamedAndShifted) {
    const TrainableLstm model(lstm_preset(Preset::Lite), 2);  // two layers of 8
    const nn::ParameterSet& params = model.parameters();
    EXPECT_EQ(params.at("core.weight_ih_l1").shape(), (Shape{32, 8}));
    EXPECT_EQ(params.at("head.weight").shape(), (Shape{1, 8}));
    for (float v : params.at("initial_cell").to_vector()) EXPECT_EQ(v, 0.0f);
    const float bound = 1.0f / std::sqrt(8.0f);
    const std::vector<float> bias = params.at("core.bias_hh_l0").to_vector();
    for (std::size_t k = 0; k < 8; ++k) {
        EXPECT_LE(std::abs(bias[k] + 2.0f), bound) << k;      // input gate
        EXPECT_LE(std::abs(bias[8 + k] - 2.0f), bound) << k;  // forget gate
        EXPECT_LE(std::abs(bias[16 + k]), bound) << k;        // cell gate: unshifted
    }
}

TEST(NamTrainLstm, ExportMatchesEngineNano) { expect_export_parity(Preset::Nano); }
TEST(NamTrainLstm, ExportMatchesEngineLiteTwoLayers) { expect_export_parity(Preset::Lite); }

// The training pass equals inference on its values (burn-in and chunks only change where
// gradients stop), and its gradient reaches the learned initial state only through the
// burn-in's attached state.
TEST(NamTrainLstm, TrainingPassMatchesInference) {
    LstmSpec spec = lstm_preset(Preset::Nano);
    spec.train_burn_in = 100;
    spec.train_truncate = 37;
    TrainableLstm model(spec, 5);
    const std::vector<float> x = chirp(300);
    const auto trained = model.forward_train(row_of(x)).contiguous().to_vector();
    const auto inferred = [&] {
        ag::NoGradScope no_grad;
        return model.forward(row_of(x)).contiguous().to_vector();
    }();
    ASSERT_EQ(trained.size(), inferred.size());
    for (std::size_t i = 0; i < trained.size(); ++i) EXPECT_NEAR(trained[i], inferred[i], 1e-6f) << i;

    ag::backward(ag::sum_all(ag::narrow(model.forward_train(row_of(x)), 1, 100, 200)));
    const Tensor initial_hidden = model.parameters().at("initial_hidden");
    ASSERT_EQ(initial_hidden.shape(), (Shape{1, spec.hidden_size}));
    const Tensor g = ag::grad(initial_hidden);
    ASSERT_TRUE(g.defined());
    double norm = 0.0;
    for (float v : g.to_vector()) norm += std::abs(v);
    EXPECT_GT(norm, 0.0);
}

}  // namespace
}  // namespace forge::nam::train
