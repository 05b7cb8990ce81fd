// Training .nam models: the differentiable WaveNet exports weights in Core's order (a
// trained model renders through the real-time engine exactly as it trains), the capture
// signal's layout and latency calibration, and a short simulated profile that reaches a
// usable ESR.
#include "core/autograd/ag.h"
#include "core/optim/adam.h"
#include "models/nam/engine.h"
#include "models/nam/factory.h"
#include "models/nam/nam_writer.h"
#include "models/nam/train/amp_sim.h"
#include "models/nam/train/capture_signal.h"
#include "models/nam/train/data_checks.h"
#include "models/nam/train/latency.h"
#include "models/nam/train/losses.h"
#include "models/nam/train/trainable_wavenet.h"
#include "models/nam/train/trainer.h"

#include "test/models/nam/train_signals.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

namespace forge::nam::train {
namespace {

using testing::chirp;

// Train a few steps, export, load with models/nam, render: the engine's output equals the
// training model's forward pass on the same input once the receptive field is full.
void expect_export_parity(Preset preset) {
    TrainableWaveNet model(wavenet_preset(preset), 3);
    const long rf = model.receptive_field(), n = rf + 3000;
    const std::vector<float> x = chirp(static_cast<std::size_t>(n));
    const Tensor input = Tensor::from(std::span<const float>(x), {1, n});
    optim::Adam adam(model.parameters().trainable(), {.lr = 0.004f});
    for (int step = 0; step < 3; ++step) {
        ag::backward(ag::mse(model.forward(input), Tensor::zeros({1, n - rf + 1})));
        adam.step();
        adam.zero_grad();
    }
    const auto path = std::filesystem::temp_directory_path() / "forge_train_export_test.nam";
    write_nam_file(path, model.to_nam_file(48000.0));
    Engine engine(make_model(read_nam_file(path)), 64);
    std::filesystem::remove(path);
    const std::vector<float> rendered = render(engine, x);

    ag::NoGradScope no_grad;
    const Tensor expected = model.forward(input).contiguous();
    const auto e = expected.span<float>();
    double worst = 0.0, peak = 1.0;
    for (std::size_t i = 0; i < e.size(); ++i) {
        worst = std::max(worst, std::abs(static_cast<double>(e[i]) - rendered[i + static_cast<std::size_t>(rf - 1)]));
        peak = std::max(peak, std::abs(static_cast<double>(e[i])));
    }
    EXPECT_LT(worst / peak, 1e-5) << preset_name(preset);
}

TEST(NamTrain, ExportMatchesEngineNano) { expect_export_parity(Preset::Nano); }
TEST(NamTrain, ExportMatchesEngineFeather) { expect_export_parity(Preset::Feather); }
TEST(NamTrain, ExportMatchesEngineStandard) { expect_export_parity(Preset::Standard); }

// The parameters carry the reference trainer's module names in .nam weight order, start from
// (seed, name) alone (the same seed gives the same model, another seed another) within
// PyTorch's Conv1d bound, and a state dict carries one model's weights into another.
TEST(NamTrain, ParametersAreNamedSeededAndLoadable) {
    const TrainableWaveNet a(wavenet_preset(Preset::Nano), 7), same(wavenet_preset(Preset::Nano), 7);
    TrainableWaveNet other(wavenet_preset(Preset::Nano), 8);
    const nn::ParameterSet& params = a.parameters();
    ASSERT_FALSE(params.all().empty());
    EXPECT_EQ(params.all().front().name, "layer_arrays.0.rechannel.weight");
    EXPECT_EQ(params.all().back().name, "layer_arrays.1.head_rechannel.bias");
    EXPECT_TRUE(params.contains("layer_arrays.1.layers.12.input_mixer.weight"));
    EXPECT_FALSE(params.contains("layer_arrays.0.head_rechannel.bias"));  // the first head has no bias
    EXPECT_EQ(a.nam_weights().size(), static_cast<std::size_t>(params.numel()) + 1);  // + head_scale
    EXPECT_EQ(a.nam_weights(), same.nam_weights());
    EXPECT_NE(a.nam_weights(), other.nam_weights());
    const float bound = 1.0f / std::sqrt(4.0f * 3.0f);  // conv fan-in: 4 channels x kernel 3
    for (float v : params.at("layer_arrays.0.layers.0.conv.weight").to_vector()) EXPECT_LE(std::abs(v), bound);
    other.parameters().load_state_dict(params.state_dict(), "test");
    EXPECT_EQ(other.nam_weights(), a.nam_weights());
}

TEST(NamTrain, CaptureSignalIsRecognizedAndLatencyCalibrated) {
    const std::vector<float> di = capture_signal(CaptureSize::Short);
    const CaptureLayout layout = recognize_capture(di, 48000);
    EXPECT_EQ(layout.name, "forge-1-short");
    const std::vector<float> reamp = simulate_amp(di, {.latency = 37});
    const LatencyCalibration latency = calibrate_latency(reamp, layout);
    ASSERT_TRUE(latency.delay.has_value()) << latency.warning;
    EXPECT_EQ(*latency.delay, 37);
    EXPECT_EQ(*latency.recommended, 36);
    const DataCheckReport checks = check_capture(di, reamp, layout);
    for (const DataCheck& c : checks.checks) EXPECT_TRUE(c.passed) << c.name << ": " << c.message;
    EXPECT_EQ(recognize_capture(chirp(1000), 48000).name, "");
}

// The short simulated capture (default amp) on nano within CI time. The reference's
// windows of 8192 outputs give too few Adam steps on 12 s of training audio; windows of 1024
// give 8x the steps for about 3x the compute (each also carries the 4093-sample receptive
// field). Two epochs (~290 steps) passed for seed 0 only (0.046; seed 1: 0.135); twelve epochs
// with the rate decayed 0.85 per epoch pass for seeds 0-4: 0.031-0.039 with the init from
// nn::ParameterSet (0.032-0.046 with the earlier splitmix64 stream), about 20 s of CPU in the
// simd build (docs/NAM.md, Training, Measured).
TEST(NamTrain, SimulatedProfileNanoReachesUsableEsr) {
    const std::vector<float> di = capture_signal(CaptureSize::Short);
    const CaptureLayout layout = recognize_capture(di, 48000);
    const std::vector<float> reamp = simulate_amp(di);
    const int latency = *calibrate_latency(reamp, layout).recommended;
    const TrainingData data = split_capture(di, reamp, layout, latency);
    TrainOptions options;
    options.preset = Preset::Nano;
    options.epochs = 12;
    options.batch = 4;
    options.ny = 1024;
    options.lr = 0.01f;
    options.lr_decay = 0.15f;
    options.loss.mrstft_weight = 0.0f;  // MSE only: the STFT term costs time and targets tone, not ESR
    const TrainResult result = train_model(data, options);
    EXPECT_LT(result.validation_esr, 0.05);
    RecordProperty("validation_esr", std::to_string(result.validation_esr));
}

}  // namespace
}  // namespace forge::nam::train
