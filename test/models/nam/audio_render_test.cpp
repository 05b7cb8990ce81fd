// Rendering audio through a .nam model (models/nam/audio_render.h), as `forge nam run` does:
// the same samples as the engine's block loop, the input gain before the model, the
// normalization gain after it, a rate other than the model's resampled there and back, and a
// file in, a file out.
#include "core/audio/audio_file.h"
#include "models/nam/audio_render.h"
#include "models/nam/loudness.h"

#include "test/models/nam/fixtures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

namespace forge::nam {
namespace {

NamFile bundled() { return read_nam_file(testing::bundled_models() / "forge-sim-amp.nam"); }

std::vector<float> short_sine(std::size_t n) {
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = 0.3f * std::sin(0.01f * static_cast<float>(i));
    return x;
}

TEST(AudioRender, AShortBufferIsTheEngineBlockLoop) {
    const NamFile file = bundled();
    const std::vector<float> in = short_sine(1000);  // not a multiple of the block
    const RenderedAudio r = render_audio(file, in, 48000, "sine", {});
    EXPECT_EQ(r.samples, testing::render_like_core(file, std::nullopt, in));
    EXPECT_EQ(r.sample_rate, 48000);
    EXPECT_FALSE(r.model_rate.has_value());
    EXPECT_FALSE(r.normalization_gain.has_value());
    EXPECT_DOUBLE_EQ(r.audio_seconds, 1000.0 / 48000.0);
}

TEST(AudioRender, InputGainScalesTheModelsInput) {
    const NamFile file = bundled();
    const std::vector<float> in = short_sine(500);
    std::vector<float> louder = in;
    const auto g = static_cast<float>(std::pow(10.0, 6.0 / 20.0));
    for (float& x : louder) x *= g;
    EXPECT_EQ(render_audio(file, in, 48000, "sine", {{}, 6.0, false}).samples,
              testing::render_like_core(file, std::nullopt, louder));
}

TEST(AudioRender, NormalizeScalesTheOutputByTheModelsLoudness) {
    NamFile file = bundled();
    const std::vector<float> in = short_sine(500);
    const std::vector<float> plain = render_audio(file, in, 48000, "sine", {}).samples;

    file.metadata.loudness = -12.0;
    const RenderedAudio r = render_audio(file, in, 48000, "sine", {{}, 0.0, true});
    ASSERT_TRUE(r.normalization_gain.has_value());
    EXPECT_DOUBLE_EQ(*r.normalization_gain, *normalization_gain(file.metadata));
    ASSERT_EQ(r.samples.size(), plain.size());
    for (std::size_t i = 0; i < plain.size(); ++i)
        EXPECT_EQ(r.samples[i], plain[i] * static_cast<float>(*r.normalization_gain));

    file.metadata.loudness.reset();  // as the plugin: no loudness, no normalization
    const RenderedAudio none = render_audio(file, in, 48000, "sine", {{}, 0.0, true});
    EXPECT_FALSE(none.normalization_gain.has_value());
    EXPECT_EQ(none.samples, plain);
}

TEST(AudioRender, AnotherRateIsResampledToTheModelsAndBack) {
    NamFile file = bundled();
    file.sample_rate = 48000.0;
    const RenderedAudio r = render_audio(file, short_sine(4410), 44100, "sine", {});
    ASSERT_TRUE(r.model_rate.has_value());
    EXPECT_EQ(*r.model_rate, 48000.0);
    EXPECT_EQ(r.sample_rate, 44100);
    EXPECT_NEAR(static_cast<double>(r.samples.size()), 4410.0, 2.0);
}

TEST(AudioRender, AFileInAFileOut) {
    const NamFile file = bundled();
    const auto dir = std::filesystem::temp_directory_path() / "forge_audio_render_test";
    std::filesystem::create_directories(dir);
    const std::vector<float> mono = short_sine(700);
    std::vector<float> stereo;
    for (float x : mono) stereo.insert(stereo.end(), {x, x});
    audio::write_audio(dir / "in.wav", {stereo, 2, 48000});

    const RenderedFile r = render_audio_file(file, (dir / "in.wav").string(), (dir / "out.wav").string(), {}, {});
    EXPECT_EQ(r.input_channels, 2);
    const audio::Audio out = audio::read_audio(dir / "out.wav");
    EXPECT_EQ(out.channels, 1);
    EXPECT_EQ(out.sample_rate, 48000);
    EXPECT_EQ(out.samples, r.audio.samples);
    EXPECT_EQ(out.samples, testing::render_like_core(file, std::nullopt, mono));
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace forge::nam
