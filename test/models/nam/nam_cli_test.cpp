// The forge binary's nam commands as a user runs them, on a machine without audio hardware:
// - `forge nam profile` without --simulate and without devices: one clear error, exit 1,
//   none of ALSA's or JACK's probing noise, no hang;
// - `forge nam devices` without devices, and with ALSA's null device (which plays into the
//   void, untimed, and records nothing useful: the whole PortAudio stream path runs, and the
//   useless recording is reported);
// - `forge nam run --normalize` with and without a loudness in the model;
// - `forge nam run default IN OUT` and `forge nam run IN OUT` (the bundled model);
// - Ctrl-C in `forge nam profile --simulate` (the training of `nam train`): exit 0 and the
//   model trained so far in --out.
#include "core/audio/audio_file.h"
#include "test/app/forge_binary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace forge {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

const fs::path kDir = fs::temp_directory_path() / "forge_nam_cli_test";

using Result = test::ForgeRun;

Result forge(const std::string& args, const std::string& env = "") { return test::run_forge(args, "", env); }

void write_text(const fs::path& path, const std::string& text) {
    std::ofstream(path) << text;
}

// No JACK server (none is started for the test); with a file, an ALSA configuration that
// defines exactly the devices the test wants. (An empty ALSA configuration is no good: PortAudio
// asserts on it.)
std::string audio_env(const std::string& alsa_conf = "") {
    std::string env = "JACK_NO_START_SERVER=1 JACK_DEFAULT_SERVER=forge-test-no-server";
    if (!alsa_conf.empty()) {
        const fs::path conf = kDir / "asound.conf";
        write_text(conf, alsa_conf);
        env += " ALSA_CONFIG_PATH=" + conf.string();
    }
    return env;
}

// The tests of the no-device path need a machine without devices (CI, containers).
bool machine_has_audio_devices() {
    return forge("nam devices", audio_env()).out.find("no audio devices found") == std::string::npos;
}

class NamCli : public ::testing::Test {
protected:
    static void SetUpTestSuite() { fs::create_directories(kDir); }
    static void TearDownTestSuite() { fs::remove_all(kDir); }
};

TEST_F(NamCli, ProfileWithoutDevicesSaysWhatToDo) {
    if (machine_has_audio_devices()) GTEST_SKIP() << "this machine has audio devices";
    const Result r = forge("nam profile --short --arch nano --epochs 1 --out " + (kDir / "p.nam").string(), audio_env());
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr("forge: error: no audio input/output device found; use --simulate or record the "
                                 "capture signal yourself and run forge nam train"));
    EXPECT_THAT(r.err, Not(HasSubstr("ALSA lib")));
    EXPECT_THAT(r.err, Not(HasSubstr("jack")));
    EXPECT_FALSE(fs::exists(kDir / "p.nam"));
}

TEST_F(NamCli, DevicesWithoutDevices) {
    if (machine_has_audio_devices()) GTEST_SKIP() << "this machine has audio devices";
    const Result r = forge("nam devices", audio_env());
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("no audio devices found"));
    EXPECT_THAT(r.err, Not(HasSubstr("ALSA lib")));
}

TEST_F(NamCli, NullDeviceRecordsNothingUsefulAndTheProfileSaysSo) {
    const std::string env = audio_env("pcm.!default { type null }\n");
    const Result list = forge("nam devices", env);
    EXPECT_EQ(list.status, 0) << list.err;
    if (list.out.find("default") == std::string::npos) GTEST_SKIP() << "this PortAudio does not list ALSA's null device";
    const Result r = forge("nam profile --short --arch nano --epochs 1 --out " + (kDir / "n.nam").string(), env);
    EXPECT_EQ(r.status, 1) << r.err;
    // The null device's capture is silence or garbage, depending on the ALSA version.
    EXPECT_THAT(r.err, ContainsRegex("the recording (is silent|is not audio|does not follow the capture signal)"));
    EXPECT_TRUE(fs::exists(kDir / "n.capture.wav"));  // the capture signal is written before playing
    EXPECT_FALSE(fs::exists(kDir / "n.nam"));
}

// An identity Linear model, with or without a loudness in its metadata.
fs::path identity_model(const std::string& name, const std::string& metadata) {
    const fs::path path = kDir / name;
    write_text(path, R"({"version": "0.5.4", )" + metadata +
                         R"("architecture": "Linear", "config": {"receptive_field": 1, "bias": false}, )"
                         R"("weights": [1.0], "sample_rate": 48000})");
    return path;
}

std::vector<float> samples(const fs::path& path) { return audio::read_audio(path).samples; }

TEST_F(NamCli, NormalizeUsesTheModelsLoudnessOrWarns) {
    const fs::path in = kDir / "di.wav";
    ASSERT_EQ(forge("nam capture-signal --short " + in.string()).status, 0);
    const std::vector<float> x = samples(in);

    const fs::path plain = identity_model("plain.nam", ""), loud = identity_model("loud.nam", R"("metadata": {"loudness": -12.0}, )");
    Result r = forge("nam run " + plain.string() + " " + in.string() + " " + (kDir / "plain.wav").string() + " --normalize");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("has no loudness in its metadata; the output is not normalized"));
    EXPECT_EQ(samples(kDir / "plain.wav"), x);

    r = forge("nam run " + loud.string() + " " + in.string() + " " + (kDir / "loud.wav").string() + " --normalize");
    EXPECT_EQ(r.status, 0) << r.err;
    const std::vector<float> y = samples(kDir / "loud.wav");
    ASSERT_EQ(y.size(), x.size());
    const float gain = static_cast<float>(std::pow(10.0, (-18.0 - -12.0) / 20.0));  // the plugin: -18 dB - loudness
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(y[i], x[i] * gain, 1e-6f) << i;
}

TEST_F(NamCli, BundledModelIsTheDefault) {
    const fs::path in = kDir / "clip.wav";
    ASSERT_EQ(forge("nam capture-signal --short " + in.string()).status, 0);
    Result r = forge("nam run default " + in.string() + " " + (kDir / "a.wav").string());
    ASSERT_EQ(r.status, 0) << r.err;
    r = forge("nam run " + in.string() + " " + (kDir / "b.wav").string());
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<float> a = samples(kDir / "a.wav");
    EXPECT_EQ(a, samples(kDir / "b.wav"));
    EXPECT_EQ(a.size(), samples(in).size());
    r = forge("nam info default");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_THAT(r.out, ContainsRegex("loudness: +-[0-9.]+ dB"));  // written by the export
}

TEST_F(NamCli, CtrlCInTrainingWritesTheModelSoFarAndExitsZero) {
    const fs::path model = kDir / "stopped.nam", log = kDir / "stopped.log";
    fs::remove(model);
    const pid_t pid = test::spawn_process({FORGE_EXE, "nam", "profile", "--simulate", "--short", "--arch", "nano",
                                           "--epochs", "100", "--batch", "4", "--ny", "1024", "--out", model.string()},
                                          log.string());
    // After the first epoch's line: the stop comes within a later epoch (or at its end).
    int status = 0;
    while (test::read_file(log.string()).find("epoch 1/100") == std::string::npos) {
        ASSERT_EQ(waitpid(pid, &status, WNOHANG), 0) << "ended before its first epoch: " << test::read_file(log.string());
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid, SIGINT);
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_THAT(test::read_file(log.string()), HasSubstr("interrupted in epoch"));
    EXPECT_TRUE(fs::exists(model));
    EXPECT_EQ(forge("nam info " + model.string()).status, 0);
}

}  // namespace
}  // namespace forge
