// Hostile .nam files: each class of bug found by hand, fixed at the class, checked through
// `forge nam run` as a user meets it: a clear error naming the file and the field, exit 1,
// bounded time and memory, no output written.
#include "core/audio/audio_file.h"
#include "core/error.h"
#include "models/nam/signal.h"
#include "test/robustness/hostile.h"

#include <gtest/gtest.h>

#include <string>

namespace forge::test {
namespace {

// A ConvNet with one block of one channel: 2 conv taps + bias, then a 1x1 head + bias.
std::string convnet(const std::string& dilation, const std::string& channels = "1",
                    const std::string& weights = "[0.5, 0.5, 0.0, 1.0, 0.0]") {
    return R"({"version": "0.5.4", "architecture": "ConvNet", "sample_rate": 48000,
               "config": {"channels": )" + channels + R"(, "dilations": [)" + dilation +
           R"(], "batchnorm": false, "activation": "Tanh"},
               "weights": )" + weights + "}";
}

// Container of containers, `depth` deep, around a Linear model.
std::string nested_containers(int depth) {
    std::string open, close;
    for (int i = 0; i < depth; ++i) {
        open += R"({"version": "0.5.4", "architecture": "SlimmableContainer", "config": {"submodels": [{"max_value": 1.0, "model": )";
        close += "}]}, \"weights\": []}";
    }
    return open + R"({"version": "0.5.4", "architecture": "Linear", "config": {"receptive_field": 1, "bias": false}, "weights": [1.0]})" + close;
}

class NamHostile : public ::testing::Test {
protected:
    void SetUp() override {
        audio::write_audio(scratch_dir() / "in.wav", {std::vector<float>(9600, 0.1f), 1, 48000});
    }
    // `forge nam run FILE in.wav out.wav` on a model with `text`; if it fails, the output
    // must not appear.
    BoundedRun run_model(const std::string& text) {
        const fs::path model = write_file("model.nam", text);
        const fs::path out = scratch_dir() / "out.wav";
        fs::remove(out);
        BoundedRun r = run_bounded("nam run " + quoted(model) + " " + quoted((scratch_dir() / "in.wav").string()) + " " +
                                   quoted(out.string()));
        if (r.run.status != 0) {
            EXPECT_FALSE(fs::exists(out)) << "a failed run wrote its output";
        }
        EXPECT_FALSE(fs::exists(out.string() + ".tmp")) << "a failed run left its temporary file";
        return r;
    }
};

TEST_F(NamHostile, ValidModelStillRuns) {
    const BoundedRun r = run_model(convnet("4"));
    EXPECT_EQ(r.run.status, 0) << r.run.err;
}

// (kernel - 1) * dilation near INT_MAX overflowed 32-bit arithmetic and segfaulted.
TEST_F(NamHostile, DilationNearIntMaxIsAnError) {
    expect_error(run_model(convnet("2147483647")), "model.nam: config: ConvNet block 0 conv looks back");
}

// A dilation of 1e8 in a 4 KB file allocated 6 GB for a 0.2 s render.
TEST_F(NamHostile, HugeDilationIsRefusedBeforeAllocating) {
    expect_error(run_model(convnet("100000000")), "dilation 100000000");
}

// channels 2^32 + 4 loaded as 4: JSON integers are range-checked, not truncated.
TEST_F(NamHostile, IntegerOutOfRangeIsAnError) {
    expect_error(run_model(convnet("1", "4294967300")), "model.nam: config.channels: expected an integer, got 4294967300 (out of range)");
}

// A file that is not JSON at all (a WAV given as the model, a text file, nothing) is named as
// the wrong kind of file, not answered with the JSON parser's dump about its first byte.
TEST_F(NamHostile, AFileThatIsNotJsonIsNotANamFile) {
    for (const std::string& text : {std::string("RIFF\x24\0\0\0WAVEfmt ", 16), std::string("plain text"), std::string()}) {
        const BoundedRun r = run_model(text);
        expect_error(r, "model.nam: not a .nam file (JSON expected)");
        EXPECT_EQ(r.run.err.find("json.exception"), std::string::npos) << r.run.err;
    }
}

// A .nam cut short (a download that stopped) names the file and the place, without the JSON
// library's "[json.exception.parse_error.101]" tag.
TEST_F(NamHostile, ATruncatedFileSaysWhereItEnds) {
    const BoundedRun r = run_model(R"({"version": "0.5.4", "architecture": "Linear", "con)");
    expect_error(r, "model.nam: malformed JSON: parse error at line 1, column 52");
    EXPECT_EQ(r.run.err.find("json.exception"), std::string::npos) << r.run.err;
}

// 1e400 gave nlohmann's raw exception without the file name.
TEST_F(NamHostile, NumberOutOfDoubleRangeNamesTheFile) {
    expect_error(run_model(convnet("1", "1", "[1e400, 0, 0, 1, 0]")), "model.nam: malformed JSON");
}

// A weight beyond float's range would become inf.
TEST_F(NamHostile, WeightOutOfFloatRangeIsAnError) {
    expect_error(run_model(convnet("1", "1", "[1e300, 0, 0, 1, 0]")), "model.nam: weights: element 0");
}

// 20 000 nested containers overflowed the stack in a recursive copy; 3 000 took 5.6 GB.
TEST_F(NamHostile, DeeplyNestedContainersStopAtTheJsonDepth) {
    expect_error(run_model(nested_containers(20000)), "model.nam: JSON nested more than 64 levels deep");
    expect_error(run_model(nested_containers(3000)), "model.nam: JSON nested more than 64 levels deep");
}

TEST_F(NamHostile, NestedModelsStopAtTheModelDepth) {
    expect_error(run_model(nested_containers(8)), "models nested more than 4 deep");
    const BoundedRun ok = run_model(nested_containers(3));
    EXPECT_EQ(ok.run.status, 0) << ok.run.err;
}

TEST_F(NamHostile, MissingActivationIsAnErrorNotUndefinedBehaviour) {
    std::string text = convnet("1");
    text.replace(text.find(R"(, "activation": "Tanh")"), 22, "");
    expect_error(run_model(text), "model.nam: config.activation: missing");
}

TEST_F(NamHostile, AbsurdSampleRateIsAnError) {
    std::string text = convnet("1");
    text.replace(text.find("48000"), 5, "1e300");
    expect_error(run_model(text), "model.nam: sample_rate");
}

// The buffers of all models together are bounded, whatever mix of channels and look-back
// a file asks for; the check comes before the allocation.
TEST(NamStateBudget, RefusesBeforeAllocating) {
    nam::SignalBuffer small;
    small.resize(4, 1024);
    const std::int64_t before = nam::SignalBuffer::total_floats();
    nam::SignalBuffer huge;
    EXPECT_THROW(huge.resize(std::int64_t{1} << 20, std::int64_t{1} << 20), Error);
    EXPECT_THROW(huge.resize(std::int64_t{1} << 40, std::int64_t{1} << 40), Error);  // overflows int64
    EXPECT_EQ(nam::SignalBuffer::total_floats(), before);
    nam::SignalBuffer moved = std::move(small);
    EXPECT_EQ(nam::SignalBuffer::total_floats(), before);
}

}  // namespace
}  // namespace forge::test
