// The capture-to-model pipeline's front (models/nam/train/capture_training.h) and the
// --arch names (architecture_name.h): every name parses to its architecture and preset, and a
// capture that cannot be trained on fails before any training, naming the input.
#include "core/error.h"
#include "models/nam/train/architecture_name.h"
#include "models/nam/train/capture_signal.h"
#include "models/nam/train/capture_training.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace forge::nam::train {
namespace {

using ::testing::HasSubstr;

TEST(ArchitectureName, WaveNetPresetsAndLstmSizes) {
    struct Case {
        const char* name;
        Architecture architecture;
        Preset preset;
    };
    for (const Case& c : {Case{"standard", Architecture::WaveNet, Preset::Standard},
                          Case{"lite", Architecture::WaveNet, Preset::Lite},
                          Case{"feather", Architecture::WaveNet, Preset::Feather},
                          Case{"nano", Architecture::WaveNet, Preset::Nano},
                          Case{"lstm", Architecture::Lstm, Preset::Standard},
                          Case{"lstm-standard", Architecture::Lstm, Preset::Standard},
                          Case{"lstm-lite", Architecture::Lstm, Preset::Lite},
                          Case{"lstm-feather", Architecture::Lstm, Preset::Feather},
                          Case{"lstm-nano", Architecture::Lstm, Preset::Nano}}) {
        const ArchitectureChoice choice = parse_architecture(c.name);
        EXPECT_EQ(choice.architecture, c.architecture) << c.name;
        EXPECT_EQ(choice.preset, c.preset) << c.name;
    }
}

TEST(ArchitectureName, TheListIsWhatParses) {
    EXPECT_EQ(architecture_names().size(), 9u);
    for (const std::string& name : architecture_names()) EXPECT_NO_THROW(parse_architecture(name)) << name;
}

TEST(ArchitectureName, OtherNamesAreErrors) {
    for (const char* name : {"", "lstm-", "lstm-huge", "lstmlite", "LSTM", "wavenet", "lite-lstm", "standard "})
        EXPECT_THROW(parse_architecture(name), Error) << '"' << name << '"';
}

TEST(CaptureTraining, ACaptureAtAnotherRateIsAnErrorNamingTheInput) {
    const std::vector<float> di(44100, 0.0f);
    try {
        train_on_capture(di, di, 44100, "di.wav", {});
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_THAT(e.what(), HasSubstr("di.wav is 44100 Hz: the capture signal is 48 kHz"));
    }
}

TEST(CaptureTraining, AnUnknownSignalIsAnErrorBeforeAnyCheck) {
    const std::vector<float> di(48000, 0.1f);
    bool checked = false;
    CaptureTrainingCallbacks callbacks;
    callbacks.on_checks = [&](const DataCheckReport&) { checked = true; };
    try {
        train_on_capture(di, di, 48000, "di.wav", {}, callbacks);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_THAT(e.what(), HasSubstr("di.wav: not a known capture signal (1.00 s;"));
    }
    EXPECT_FALSE(checked);
}

TEST(CaptureTraining, AFailedCheckStopsTheRunAfterItIsReported) {
    const std::vector<float> di = capture_signal(CaptureSize::Short);
    const std::vector<float> clipped(di.size(), 1.0f);  // the recording at full scale: its clipping check fails
    std::string layout;
    bool reported = false;
    CaptureTrainingCallbacks callbacks;
    callbacks.on_layout = [&](const CaptureLayout& l) { layout = l.name; };
    callbacks.on_checks = [&](const DataCheckReport& r) { reported = !r.passed(); };
    EXPECT_THROW(train_on_capture(di, clipped, 48000, "di.wav", {}, callbacks), Error);
    EXPECT_FALSE(layout.empty());
    EXPECT_TRUE(reported);
}

}  // namespace
}  // namespace forge::nam::train
