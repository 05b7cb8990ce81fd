// The live engine against `forge nam run`'s render (audio_render.h): the same model, input
// gain and --normalize, block by block as an audio callback calls it, give the same samples;
// the recording holds exactly the dry input and the wet output; the meters add up.
#include "core/audio/audio_file.h"
#include "models/nam/audio_render.h"
#include "models/nam/live/live_engine.h"
#include "models/nam/live/live_meters.h"
#include "models/nam/loudness.h"
#include "test/models/nam/fixtures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

namespace forge::nam {
namespace {

struct LiveRun {
    std::vector<float> output, dry, wet;
    LiveMeters meters{48000.0};
};

// `input` through a LiveEngine in callback-sized pieces of `block` frames (the last one
// short), draining the rings as the main thread does.
LiveRun play(const NamFile& file, const LiveOptions& options, const std::vector<float>& input, std::size_t block) {
    LiveEngine engine(file, options);
    LiveRun run;
    run.output.resize(input.size());
    std::vector<BlockReport> reports(64);
    for (std::size_t at = 0; at < input.size(); at += block) {
        const std::size_t n = std::min(block, input.size() - at);
        engine.process(std::span<const float>(input).subspan(at, n), std::span<float>(run.output).subspan(at, n),
                       at == 10 * block);
        for (std::size_t k; (k = engine.drain_reports(reports)) > 0;)
            for (std::size_t i = 0; i < k; ++i) run.meters.add(reports[i]);
        engine.drain_recording(run.dry, run.wet);
    }
    return run;
}

std::vector<float> committed_input() {
    const audio::Audio a = audio::read_audio(testing::test_data() / "core" / "input.wav");
    return audio::channel_of(a, 0);
}

TEST(LiveEngine, PlaysWhatForgeNamRunRendersWithTheSameGains) {
    const NamFile file = read_nam_file(testing::bundled_models() / "forge-sim-amp.nam");
    ASSERT_TRUE(file.metadata.loudness.has_value());
    const std::vector<float> input = committed_input();
    LiveOptions options;
    options.render.input_gain_db = -6.0;
    options.render.normalize = true;
    options.record = true;
    const LiveRun live = play(file, options, input, 64);
    const RenderedAudio offline = render_audio(file, input, 48000, "input.wav", options.render);
    ASSERT_EQ(live.output.size(), offline.samples.size());
    // Same model, same blocks, same float gains: the same samples.
    for (std::size_t i = 0; i < input.size(); ++i) ASSERT_EQ(live.output[i], offline.samples[i]) << "at " << i;
    EXPECT_EQ(live.dry, input);
    EXPECT_EQ(live.wet, live.output);
}

TEST(LiveEngine, OutputGainScalesTheWetSignal) {
    const NamFile file = read_nam_file(testing::test_data() / "core" / "forge_nano.nam");
    const std::vector<float> input = committed_input();
    LiveOptions plain, louder;
    louder.output_gain_db = 6.0;
    const LiveRun a = play(file, plain, input, 64), b = play(file, louder, input, 64);
    const float gain = static_cast<float>(amplitude_of_db(6.0));
    for (std::size_t i = 0; i < input.size(); ++i) ASSERT_EQ(b.output[i], a.output[i] * gain) << "at " << i;
    EXPECT_TRUE(a.dry.empty()) << "nothing is recorded without record";
}

TEST(LiveEngine, CallbacksLongerThanTheBlockAreSplit) {
    const NamFile file = read_nam_file(testing::test_data() / "core" / "lstm_2x3.nam");
    const std::vector<float> input = committed_input();
    const LiveRun whole = play(file, {}, input, 64), split = play(file, {}, input, 200);
    // The LSTM's state carries sample by sample: any split gives the same output.
    for (std::size_t i = 0; i < input.size(); ++i) ASSERT_NEAR(split.output[i], whole.output[i], 1e-6) << "at " << i;
}

TEST(LiveEngine, NonFiniteInputEntersAsSilence) {
    const NamFile file = read_nam_file(testing::test_data() / "core" / "lstm_2x3.nam");
    std::vector<float> input = committed_input(), cleaned = input;
    for (std::size_t i = 100; i < 110; ++i) {
        input[i] = i % 2 ? NAN : INFINITY;
        cleaned[i] = 0.0f;
    }
    LiveOptions options;
    options.record = true;
    const LiveRun garbage = play(file, options, input, 64), clean = play(file, options, cleaned, 64);
    EXPECT_EQ(garbage.output, clean.output);
    EXPECT_EQ(garbage.dry, cleaned);
}

// An identity model at 48 kHz behind a 44.1 kHz device: a 1 kHz sine comes back as the same
// sine, delayed by exactly the bridge's head start, without a glitch.
TEST(LiveEngine, ResamplesAModelAtAnotherRateWithoutGlitches) {
    const std::filesystem::path path = std::filesystem::path(::testing::TempDir()) / "live_identity_48k.nam";
    std::ofstream(path) << R"({"version": "0.5.4", "architecture": "Linear", "config": {"receptive_field": 1, "bias": false},
                              "weights": [1.0], "sample_rate": 48000})";
    const NamFile file = read_nam_file(path);
    constexpr double kRate = 44100.0;
    std::vector<float> input(44100);
    for (std::size_t i = 0; i < input.size(); ++i)
        input[i] = 0.5f * static_cast<float>(std::sin(2 * M_PI * 1000.0 * static_cast<double>(i) / kRate));
    LiveOptions options;
    options.sample_rate = kRate;
    LiveEngine engine(file, options);
    ASSERT_TRUE(engine.resampling());
    std::vector<float> output(input.size());
    for (std::size_t at = 0; at < input.size(); at += 64) {
        const std::size_t n = std::min<std::size_t>(64, input.size() - at);
        engine.process(std::span<const float>(input).subspan(at, n), std::span<float>(output).subspan(at, n), false);
    }
    // The delay that lines the output up with the input, over the last 0.9 s.
    const std::size_t from = 4410;
    double best = 1e9;
    std::size_t delay = 0;
    for (std::size_t d = 0; d < 400; ++d) {
        double worst = 0;
        for (std::size_t i = from; i < input.size(); ++i) worst = std::max(worst, double(std::abs(output[i] - input[i - d])));
        if (worst < best) best = worst, delay = d;
    }
    std::fprintf(stderr, "44.1 kHz device, 48 kHz identity model: delay %zu frames (head start %d), max error %.3g\n",
                 delay, engine.resampling_latency_frames(), best);
    // The sinc filters compensate their own delay: the head start is the whole delay.
    EXPECT_EQ(delay, static_cast<std::size_t>(engine.resampling_latency_frames()));
    // 10x the measured 7.5e-6 (SRC_SINC_FASTEST both ways); a dropped or doubled frame is 0.07.
    EXPECT_LE(best, 1e-4);
}

// Swapping models while playing: the block after the offer fades from the old model's output
// to the new one's; from the next block on the output is the new model's alone, as if it had
// played (prewarmed, from silence) since the swap; the old model comes back to be freed.
TEST(LiveEngine, SwapsModelsWithACrossfadeOverOneBlock) {
    const NamFile a = read_nam_file(testing::test_data() / "core" / "forge_nano.nam");
    const NamFile b = read_nam_file(testing::bundled_models() / "forge-sim-amp.nam");
    const std::vector<float> input = committed_input();
    LiveEngine engine(a, {});
    std::vector<float> output(input.size());
    const std::size_t swap_at = 64 * 20;
    for (std::size_t at = 0; at < input.size(); at += 64) {
        const std::size_t n = std::min<std::size_t>(64, input.size() - at);
        if (at == swap_at) {
            ASSERT_TRUE(engine.offer(engine.prepare_model(b)));
            EXPECT_FALSE(engine.offer(engine.prepare_model(b))) << "one swap at a time";
        }
        engine.process(std::span<const float>(input).subspan(at, n), std::span<float>(output).subspan(at, n), false);
    }
    const LiveRun old_model = play(a, {}, input, 64);
    const std::vector<float> tail(input.begin() + static_cast<std::ptrdiff_t>(swap_at), input.end());
    const LiveRun new_model = play(b, {}, tail, 64);
    for (std::size_t i = 0; i < swap_at; ++i) ASSERT_EQ(output[i], old_model.output[i]) << "at " << i;
    for (std::size_t i = 0; i < 64; ++i) {
        const float t = static_cast<float>(i + 1) / 64.0f;
        ASSERT_FLOAT_EQ(output[swap_at + i], (1 - t) * old_model.output[swap_at + i] + t * new_model.output[i]) << i;
    }
    for (std::size_t i = 64; i < tail.size(); ++i) ASSERT_EQ(output[swap_at + i], new_model.output[i]) << "at " << i;
    engine.collect_retired();
    EXPECT_TRUE(engine.offer(engine.prepare_model(a))) << "the swap is over once the old model is collected";
}

TEST(LiveEngine, RefusesAModelAtAnotherRate) {
    const std::filesystem::path path = std::filesystem::path(::testing::TempDir()) / "live_identity_44k.nam";
    std::ofstream(path) << R"({"version": "0.5.4", "architecture": "Linear", "config": {"receptive_field": 1, "bias": false},
                              "weights": [1.0], "sample_rate": 44100})";
    LiveEngine engine(read_nam_file(testing::test_data() / "core" / "forge_nano.nam"), {});
    EXPECT_THROW(engine.prepare_model(read_nam_file(path)), Error);
}

TEST(LiveEngine, MetersCountFramesXrunsAndPeaks) {
    const NamFile file = read_nam_file(testing::test_data() / "core" / "forge_nano.nam");
    const std::vector<float> input = committed_input();
    LiveRun run = play(file, {}, input, 64);
    const LiveTotals& t = run.meters.totals();
    EXPECT_EQ(t.frames, input.size());
    EXPECT_EQ(t.blocks, (input.size() + 63) / 64);
    EXPECT_EQ(t.xruns, 1u);
    EXPECT_EQ(t.recording_lost, 0u);
    EXPECT_GT(t.cpu_load(48000.0), 0.0);
    EXPECT_GE(t.max_block_load, t.cpu_load(48000.0));
    float in_peak = 0, out_peak = 0;
    for (std::size_t i = 0; i < input.size(); ++i) {
        in_peak = std::max(in_peak, std::abs(input[i]));
        out_peak = std::max(out_peak, std::abs(run.output[i]));
    }
    const MeterWindow w = run.meters.take_window();
    EXPECT_DOUBLE_EQ(w.input_peak_dbfs, dbfs(in_peak));
    EXPECT_DOUBLE_EQ(w.output_peak_dbfs, dbfs(out_peak));
    EXPECT_NEAR(w.audio_seconds, static_cast<double>(input.size()) / 48000.0, 1e-12);
    EXPECT_EQ(run.meters.take_window().audio_seconds, 0.0) << "a new window starts empty";
    EXPECT_EQ(dbfs(0.0), -INFINITY);
    EXPECT_NEAR(dbfs(0.5), -6.0206, 1e-4);
}

}  // namespace
}  // namespace forge::nam
