// write → read → render: a .nam file forge writes reads back with bit-identical weights and
// renders bit-identical audio.
#include "models/nam/engine.h"
#include "models/nam/factory.h"
#include "models/nam/nam_writer.h"
#include "test/models/nam/fixtures.h"

#include <cstring>
#include <filesystem>

namespace forge::nam {
namespace {

std::vector<float> test_signal(std::size_t n) {
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = 0.4f * std::sin(0.01f * static_cast<float>(i * i % 5000));
    return x;
}

TEST(NamWriter, RoundTripRendersIdentically) {
    FORGE_REQUIRE_NAM_FIXTURES();
    const auto out_path = std::filesystem::temp_directory_path() / "forge_nam_writer_test.nam";
    for (const char* name : {"wavenet.nam", "lstm.nam", "A2.nam", "wavenet_a2_max.nam", "identity/linear_10.nam"}) {
        NamFile original = read_nam_file(testing::fixtures() / name);
        original.metadata.validation_esr = 0.0123;
        original.metadata.latency = 17;
        write_nam_file(out_path, original);
        const NamFile copy = read_nam_file(out_path);
        EXPECT_EQ(copy.version, kLatestVersion);
        EXPECT_EQ(copy.architecture, original.architecture);
        ASSERT_EQ(copy.weights.size(), original.weights.size()) << name;
        EXPECT_EQ(std::memcmp(copy.weights.data(), original.weights.data(), copy.weights.size() * sizeof(float)), 0)
            << name;
        EXPECT_EQ(copy.metadata.loudness, original.metadata.loudness);
        EXPECT_EQ(copy.metadata.validation_esr, 0.0123);
        EXPECT_EQ(copy.metadata.latency, 17);
        EXPECT_TRUE(copy.metadata.raw.contains("date"));
        EXPECT_EQ(copy.sample_rate, original.sample_rate);

        const auto input = test_signal(4096);
        Engine a(make_model(original), 64), b(make_model(copy), 64);
        const auto ya = render(a, input), yb = render(b, input);
        EXPECT_EQ(std::memcmp(ya.data(), yb.data(), ya.size() * sizeof(float)), 0) << name;
    }
    std::filesystem::remove(out_path);
}

TEST(NamWriter, WritesShortestRoundTripFloats) {
    NamFile f;
    f.architecture = "Linear";
    f.config = {{"receptive_field", 2}, {"bias", false}};
    f.weights = {0.1f, 1.0f / 3.0f};
    const std::string text = format_nam(f);
    EXPECT_NE(text.find("[0.1, 0.33333334]"), std::string::npos) << text;
}

}  // namespace
}  // namespace forge::nam
