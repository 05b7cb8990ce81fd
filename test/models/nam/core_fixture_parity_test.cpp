// The committed Core fixtures (test/data/nam/core, see its README): random-weight models of
// every architecture and config variant, models forge trained and exported, and forge's bundled
// model, each rendered by NeuralAmpModelerCore built from source. forge renders them the way
// `forge nam run` does (64-frame blocks after Core's prewarm) and must match Core's output
// within 1e-5 × max(1, peak). Unlike parity_test.cpp these need nothing outside the project.
//
// Also write → read → render: each model written by forge's writer reads back into a model
// that renders bit-identical audio, and writing the copy again gives the same text.
#include "core/audio/audio_file.h"
#include "models/nam/engine.h"
#include "models/nam/factory.h"
#include "models/nam/nam_file.h"
#include "models/nam/nam_writer.h"
#include "test/models/nam/fixtures.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace forge::nam {
namespace {

// model: under test/data/nam/core, or "bundled:NAME" for models/nam/bundled/NAME; golden: Core's
// render, under test/data/nam/core.
using Case = testing::CoreRenderCase;

const Case kCases[] = {
    {"wavenet_classic.nam", "wavenet_classic.out.wav", {}},
    {"wavenet_gated.nam", "wavenet_gated.out.wav", {}},
    {"wavenet_blended.nam", "wavenet_blended.out.wav", {}},
    {"wavenet_per_layer.nam", "wavenet_per_layer.out.wav", {}},
    {"wavenet_bottleneck_groups.nam", "wavenet_bottleneck_groups.out.wav", {}},
    {"wavenet_nested_head.nam", "wavenet_nested_head.out.wav", {}},
    {"wavenet_post_head.nam", "wavenet_post_head.out.wav", {}},
    {"wavenet_film.nam", "wavenet_film.out.wav", {}},
    {"wavenet_condition_dsp.nam", "wavenet_condition_dsp.out.wav", {}},
    {"wavenet_activations.nam", "wavenet_activations.out.wav", {}},
    {"wavenet_slimmable.nam", "wavenet_slimmable.out.wav", {}},
    {"wavenet_slimmable.nam", "wavenet_slimmable.slim0.0.out.wav", 0.0},
    {"wavenet_slimmable.nam", "wavenet_slimmable.slim0.5.out.wav", 0.5},
    {"lstm_1x4.nam", "lstm_1x4.out.wav", {}},
    {"lstm_2x3.nam", "lstm_2x3.out.wav", {}},
    {"convnet_batchnorm.nam", "convnet_batchnorm.out.wav", {}},
    {"convnet_plain.nam", "convnet_plain.out.wav", {}},
    {"convnet_leaky.nam", "convnet_leaky.out.wav", {}},
    {"linear_direct.nam", "linear_direct.out.wav", {}},
    {"linear_fft.nam", "linear_fft.out.wav", {}},
    {"container.nam", "container.out.wav", {}},
    {"container.nam", "container.slim0.0.out.wav", 0.0},
    {"container.nam", "container.slim0.5.out.wav", 0.5},
    {"forge_nano.nam", "forge_nano.out.wav", {}},
    {"forge_lstm_nano.nam", "forge_lstm_nano.out.wav", {}},
    {"bundled:forge-sim-amp.nam", "forge-sim-amp.out.wav", {}},
};

std::filesystem::path core_data() { return testing::test_data() / "core"; }

std::filesystem::path model_path(const Case& c) {
    const std::string name = c.model;
    const std::string bundled = "bundled:";
    if (name.starts_with(bundled)) return testing::bundled_models() / name.substr(bundled.size());
    return core_data() / name;
}

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

class CoreFixtures : public ::testing::TestWithParam<Case> {};

TEST_P(CoreFixtures, MatchesCoreRender) {
    const Case& c = GetParam();
    const auto input = audio::read_audio(core_data() / "input.wav").samples;
    const auto golden = audio::read_audio(core_data() / c.golden).samples;
    ASSERT_EQ(input.size(), golden.size());
    const auto output = testing::render_like_core(read_nam_file(model_path(c)), c.slim, input);
    testing::expect_within_parity_bound(output, golden, std::string(c.model) + " -> " + c.golden);
}

TEST_P(CoreFixtures, WriteReadRendersIdentically) {
    const Case& c = GetParam();
    const auto input = audio::read_audio(core_data() / "input.wav").samples;
    const NamFile original = read_nam_file(model_path(c));
    const auto path = std::filesystem::temp_directory_path() /
                      ("forge_core_fixture_" + std::to_string(::getpid()) + "_" + std::string(c.golden) + ".nam");
    write_nam_file(path, original);
    const NamFile copy = read_nam_file(path);
    const std::string written = read_text(path);
    std::filesystem::remove(path);

    ASSERT_EQ(copy.weights.size(), original.weights.size());
    EXPECT_EQ(std::memcmp(copy.weights.data(), original.weights.data(), copy.weights.size() * sizeof(float)), 0);
    EXPECT_EQ(copy.config, original.config);
    EXPECT_EQ(copy.sample_rate, original.sample_rate);
    EXPECT_EQ(format_nam(copy), written) << "writing the copy again changed the text";

    const auto a = testing::render_like_core(original, c.slim, input), b = testing::render_like_core(copy, c.slim, input);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
}

INSTANTIATE_TEST_SUITE_P(Committed, CoreFixtures, ::testing::ValuesIn(kCases), [](const auto& info) {
    std::string name = info.param.golden;
    name = name.substr(0, name.size() - std::string(".out.wav").size());
    for (auto& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return name;
});

}  // namespace
}  // namespace forge::nam
