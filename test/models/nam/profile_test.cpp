// The hardware-free parts of `forge nam profile` and of the export's metadata:
// - recording through a duplex device and aligning the recording, with a test double for the
//   device that reamps through the simulated amp behind an interface-like delay;
// - loudness and gain (the reference trainer's metadata) and the plugin's normalization.
#include "core/audio/round_trip.h"
#include "models/nam/engine.h"
#include "models/nam/factory.h"
#include "models/nam/loudness.h"
#include "models/nam/train/amp_sim.h"
#include "models/nam/train/capture_signal.h"
#include "models/nam/train/latency.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace forge {
namespace {

using nam::train::CaptureSize;

// A device whose input hears its output through the simulated amp, `delay` samples late,
// with a little hiss, as an interface's round trip would be.
class SimulatedAmpDevice final : public audio::DuplexDevice {
public:
    explicit SimulatedAmpDevice(long delay, float hiss = 1e-5f) : delay_(delay), hiss_(hiss) {}
    int sample_rate() const override { return 48000; }
    std::string description() const override { return "simulated amp"; }
    void play_and_record(std::span<const float> played, std::span<float> recorded, const audio::ProgressFn& progress) override {
        const std::vector<float> amp = nam::train::simulate_amp(played);
        std::mt19937 rng(7);
        std::normal_distribution<float> noise(0.0f, hiss_);
        for (std::size_t i = 0; i < recorded.size(); ++i)
            recorded[i] = (static_cast<long>(i) >= delay_ ? amp[i - static_cast<std::size_t>(delay_)] : 0.0f) + noise(rng);
        if (progress) progress(played.size(), played.size());
    }

private:
    long delay_;
    float hiss_;
};

// A device that records only its own hiss (nothing connected) or something unrelated.
class UnrelatedDevice final : public audio::DuplexDevice {
public:
    explicit UnrelatedDevice(float level) : level_(level) {}
    int sample_rate() const override { return 48000; }
    std::string description() const override { return "unrelated"; }
    void play_and_record(std::span<const float>, std::span<float> recorded, const audio::ProgressFn&) override {
        std::mt19937 rng(11);
        std::normal_distribution<float> noise(0.0f, level_);
        for (float& v : recorded) v = noise(rng);
    }

private:
    float level_;
};

TEST(ProfileRecording, AlignsAnyInterfaceDelaySoTheBlipCalibrationFindsTheAmp) {
    const std::vector<float> signal = nam::train::capture_signal(CaptureSize::Short);
    const nam::train::CaptureLayout layout = nam::train::capture_layout(CaptureSize::Short);
    const audio::RoundTripOptions options;
    constexpr int kAmpLatency = 37;  // amp_sim.h
    for (long delay : {0L, 5L, 1000L, 4321L, 12345L, 23000L}) {
        SimulatedAmpDevice device(delay);
        const audio::RoundTrip trip = audio::record_round_trip(device, signal, {}, options);
        ASSERT_EQ(trip.recording.size(), signal.size());
        EXPECT_GT(trip.estimate.correlation, 0.9) << delay;
        EXPECT_NEAR(static_cast<double>(trip.estimate.delay), static_cast<double>(delay + kAmpLatency), options.hop)
            << delay;
        // What is left for the trainer: the amp's latency plus at most the margin (and one
        // hop of envelope resolution), never negative.
        const nam::train::LatencyCalibration cal = nam::train::calibrate_latency(trip.recording, layout);
        ASSERT_TRUE(cal.delay.has_value()) << delay << ": " << cal.warning;
        EXPECT_GE(*cal.delay, kAmpLatency) << delay;
        EXPECT_LE(*cal.delay, kAmpLatency + (options.margin_hops + 1) * options.hop) << delay;
        EXPECT_EQ(*cal.delay, delay + kAmpLatency - trip.advanced) << delay;
    }
}

TEST(ProfileRecording, SilentOrUnrelatedRecordingsAreClearErrors) {
    const std::vector<float> signal = nam::train::capture_signal(CaptureSize::Short);
    UnrelatedDevice silent(0.0f), noise(0.1f);
    try {
        audio::record_round_trip(silent, signal, {});
        FAIL() << "a silent recording was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("the recording is silent"), std::string::npos) << e.what();
    }
    try {
        audio::record_round_trip(noise, signal, {});
        FAIL() << "an unrelated recording was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("does not follow the capture signal"), std::string::npos) << e.what();
    }
}

nam::NamFile linear_model(float weight) {
    nam::NamFile f;
    f.version = "0.5.4";
    f.architecture = "Linear";
    f.config = {{"receptive_field", 1}, {"bias", false}};
    f.weights = {weight};
    f.sample_rate = 48000.0;
    return f;
}

double rms_db(std::span<const float> x) {
    double sum = 0.0;
    for (float v : x) sum += static_cast<double>(v) * v;
    return 10.0 * std::log10(sum / static_cast<double>(x.size()));
}

TEST(Loudness, StandardInputIsOneSecondAtMinus15Db) {
    const std::vector<float> x = nam::standard_loudness_input();
    ASSERT_EQ(x.size(), 48000u);
    EXPECT_NEAR(rms_db(x), -15.0, 1e-4);
    float peak = 0.0f;
    for (float v : x) peak = std::max(peak, std::abs(v));
    EXPECT_LT(peak, 1.0f);
    EXPECT_EQ(x, nam::standard_loudness_input());  // deterministic
}

TEST(Loudness, LinearModelsHaveTheirGainInDbAndNoCompression) {
    for (float weight : {1.0f, 0.5f, 2.0f}) {
        const nam::Loudness l = nam::measure_loudness(linear_model(weight), nam::standard_loudness_input());
        EXPECT_NEAR(l.loudness_db, -15.0 + 20.0 * std::log10(weight), 1e-4) << weight;
        EXPECT_NEAR(l.gain, 0.0, 1e-6) << weight;  // a ramp: RMS proportional to the input level
    }
}

TEST(Loudness, ASaturatingModelHasGainBetweenZeroAndOne) {
    // A WaveNet fixture would need ../shared; the simulated amp's saturation is checked
    // through a trained model in the CLI test. Here: a model that is pure bias outputs the
    // same level at every input level, the "step" end of the scale (gain 1).
    nam::NamFile f = linear_model(0.0f);
    f.config["bias"] = true;
    f.weights = {0.0f, 0.25f};
    const nam::Loudness l = nam::measure_loudness(f, nam::standard_loudness_input());
    EXPECT_NEAR(l.loudness_db, 20.0 * std::log10(0.25), 1e-4);
    EXPECT_NEAR(l.gain, 1.0, 1e-6);
}

TEST(Loudness, NormalizedOutputOfAModelWithKnownLoudnessIsAtMinus18Db) {
    for (float weight : {1.0f, 0.1f, 3.0f}) {
        nam::NamFile f = linear_model(weight);
        nam::add_loudness_metadata(f);
        ASSERT_TRUE(f.metadata.loudness.has_value());
        const std::optional<double> gain = nam::normalization_gain(f.metadata);
        ASSERT_TRUE(gain.has_value());
        nam::Engine engine(nam::make_model(f), 64);
        std::vector<float> y = nam::render(engine, nam::standard_loudness_input());
        for (float& v : y) v *= static_cast<float>(*gain);
        EXPECT_NEAR(rms_db(y), nam::kNormalizationTargetDb, 1e-3) << weight;
    }
}

TEST(Loudness, AModelWithoutLoudnessIsNotNormalized) {
    EXPECT_FALSE(nam::normalization_gain(linear_model(1.0f).metadata).has_value());
    nam::Metadata m;
    m.loudness = -24.0;
    EXPECT_NEAR(*nam::normalization_gain(m), std::pow(10.0, 6.0 / 20.0), 1e-12);
}

}  // namespace
}  // namespace forge
