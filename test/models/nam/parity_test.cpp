// Every fixture model rendered by forge against NeuralAmpModelerCore's own render of the same
// input (../shared/fixtures/nam/README.md): the whole output within 1e-5 × max(1, peak).
#include "core/audio/audio_file.h"
#include "models/nam/engine.h"
#include "models/nam/factory.h"
#include "models/nam/nam_file.h"
#include "test/models/nam/fixtures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

namespace forge::nam {
namespace {

using Case = testing::CoreRenderCase;

const Case kCases[] = {
    {"wavenet.nam", "wavenet.out.wav", {}},
    {"lstm.nam", "lstm.out.wav", {}},
    {"wavenet_a1_standard.nam", "wavenet_a1_standard.out.wav", {}},
    {"A2.nam", "A2.out.wav", {}},
    {"A2.nam", "A2.slim0.0.out.wav", 0.0},
    {"wavenet_a2_max.nam", "wavenet_a2_max.out.wav", {}},
    {"wavenet_condition_dsp.nam", "wavenet_condition_dsp.out.wav", {}},
    {"slimmable_wavenet.nam", "slimmable_wavenet.out.wav", {}},
    {"slimmable_wavenet.nam", "slimmable_wavenet.slim0.0.out.wav", 0.0},
    {"slimmable_wavenet.nam", "slimmable_wavenet.slim0.5.out.wav", 0.5},
    {"slimmable_container.nam", "slimmable_container.out.wav", {}},
    {"slimmable_container.nam", "slimmable_container.slim0.0.out.wav", 0.0},
    {"slimmable_container.nam", "slimmable_container.slim0.5.out.wav", 0.5},
    {"identity/linear_1.nam", "input.wav", {}},
    {"identity/linear_10.nam", "input.wav", {}},
    {"identity/wavenet_minimal.nam", "input.wav", {}},
    {"identity/wavenet_standard.nam", "input.wav", {}},
};

class Parity : public ::testing::TestWithParam<Case> {};

TEST_P(Parity, MatchesCoreRender) {
    FORGE_REQUIRE_NAM_FIXTURES();
    const Case& c = GetParam();
    const auto dir = testing::fixtures();
    const auto input = audio::read_audio(dir / "input.wav").samples;
    const auto golden = audio::read_audio(dir / c.golden).samples;
    ASSERT_EQ(input.size(), golden.size());

    const auto output = testing::render_like_core(read_nam_file(dir / c.model), c.slim, input);
    testing::expect_within_parity_bound(output, golden, std::string(c.model) + " -> " + c.golden);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Parity, ::testing::ValuesIn(kCases), [](const auto& info) {
    std::string name = info.param.golden;
    for (auto& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return name + "_" + std::to_string(info.index);
});

}  // namespace
}  // namespace forge::nam
