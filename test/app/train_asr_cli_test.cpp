// `forge train asr` as a user runs it, on a few synthetic clips (tones whose pitch says which
// transcript they carry): the loss falls, the export is a Parakeet GGUF that `forge transcribe
// --model` reads and transcribes to the training transcripts, a run killed and resumed equals an
// uninterrupted one, and bad input is one `forge: error:` line with a non-zero exit.
#include "core/audio/audio_file.h"
#include "test/app/forge_binary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace forge {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::ForgeRun;
using test::quoted;

struct Clip {
    std::string text;
    double hz;  // the tone that carries it
};
const std::vector<Clip> kClips = {{"go", 300.0}, {"stop", 1200.0}, {"yes", 2800.0}};

// A folder of one WAV per clip (1.6 s: a rising tone around `hz`, silence at both ends) and a
// manifest in tools/make_asr_data.sh's format.
fs::path make_data_set(const std::string& name) {
    const fs::path dir = fs::path(::testing::TempDir()) / ("forge_asr_" + std::to_string(::getpid()) + "_" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream manifest(dir / "train.jsonl");
    constexpr int kRate = 16000;
    for (std::size_t i = 0; i < kClips.size(); ++i) {
        audio::Audio a{.samples = std::vector<float>(static_cast<std::size_t>(1.6 * kRate)), .channels = 1,
                       .sample_rate = kRate};
        for (std::size_t n = 3200; n + 3200 < a.samples.size(); ++n) {
            const double t = static_cast<double>(n) / kRate;
            a.samples[n] = static_cast<float>(0.3 * std::sin(2.0 * std::numbers::pi * kClips[i].hz * t * (1.0 + 0.1 * t)));
        }
        const std::string file = "clip" + std::to_string(i) + ".wav";
        audio::write_audio(dir / file, a);
        manifest << nlohmann::json{{"audio", file}, {"text", kClips[i].text}, {"duration", 1.6}}.dump() << '\n';
    }
    return dir;
}

const std::string kTinyModel =
    " --vocab 28 --mels 40 --d-model 32 --layers 1 --heads 2 --ff-dim 64 --subsampling-channels 16"
    " --batch-seconds 10 --no-spec-augment --lr 5e-3 --warmup 10 --log-every 1000";

TEST(TrainAsrCli, LossFallsAndTheExportTranscribesTheClips) {
    const fs::path dir = make_data_set("fit");
    const ForgeRun run = test::run_forge("train asr --manifest " + quoted((dir / "train.jsonl").string()) + " --out " +
                                         quoted((dir / "run").string()) + kTinyModel + " --steps 150 --json");
    ASSERT_EQ(run.status, 0) << run.err;
    const auto result = nlohmann::json::parse(run.out);
    EXPECT_EQ(result["steps"], 150);
    EXPECT_EQ(result["skipped"], 0);
    EXPECT_LT(result["loss"].get<double>(), 0.1 * result["first_loss"].get<double>()) << run.out;
    EXPECT_TRUE(fs::exists(dir / "run" / "log.jsonl"));
    EXPECT_TRUE(fs::exists(dir / "run" / "checkpoint.json"));
    for (std::size_t i = 0; i < kClips.size(); ++i) {
        const ForgeRun t = test::run_forge("transcribe " + quoted((dir / ("clip" + std::to_string(i) + ".wav")).string()) +
                                           " --model " + quoted(result["model"].get<std::string>()));
        ASSERT_EQ(t.status, 0) << t.err;
        EXPECT_EQ(t.out, kClips[i].text + "\n");
    }
    fs::remove_all(dir);
}

std::vector<double> logged_losses(const fs::path& run) {
    std::vector<double> out;
    std::ifstream in(run / "log.jsonl");
    for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line).at("loss").get<double>());
    return out;
}

int run_to_end(const std::vector<std::string>& args) {
    int status = 0;
    waitpid(test::spawn_process(args), &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Killed (SIGKILL) at random moments and resumed with --resume, a run (SpecAugment on) ends with
// the losses and the model file, byte for byte, of one run that was never stopped.
TEST(TrainAsrCli, KilledAndResumedRunEqualsAnUninterruptedOne) {
    const fs::path dir = make_data_set("kill");
    const auto args = [&](const fs::path& out, bool resume) {
        std::vector<std::string> a = {FORGE_EXE, "train", "asr", "--manifest", (dir / "train.jsonl").string(), "--out",
                                      out.string(), "--vocab", "28", "--mels", "40", "--d-model", "32", "--layers", "1",
                                      "--heads", "2", "--ff-dim", "64", "--subsampling-channels", "16",
                                      "--batch-seconds", "10", "--steps", "120", "--checkpoint-every", "10"};
        if (resume) a.push_back("--resume");
        return a;
    };
    const fs::path whole = dir / "whole", killed = dir / "killed";
    const auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(run_to_end(args(whole, false)), 0);
    const double whole_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::mt19937 rng(17);
    std::uniform_real_distribution<double> delay_ms(0.1 * whole_ms, 0.6 * whole_ms);
    int kills = 0;
    for (int attempt = 0; attempt < 6; ++attempt) {
        const pid_t pid = test::spawn_process(args(killed, fs::exists(killed / "checkpoint.json")));
        std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(delay_ms(rng)));
        ::kill(pid, SIGKILL);
        int status = 0;
        waitpid(pid, &status, 0);
        if (WIFSIGNALED(status)) ++kills;
        if (WIFEXITED(status)) {  // finished before the kill
            ASSERT_EQ(WEXITSTATUS(status), 0);
            break;
        }
    }
    EXPECT_GT(kills, 0);
    ASSERT_EQ(run_to_end(args(killed, fs::exists(killed / "checkpoint.json"))), 0);
    EXPECT_EQ(logged_losses(killed), logged_losses(whole));
    EXPECT_EQ(test::read_file((killed / "model.gguf").string()), test::read_file((whole / "model.gguf").string()));
    fs::remove_all(dir);
}

TEST(TrainAsrCli, BadManifestIsNamed) {
    const fs::path dir = make_data_set("bad");
    std::ofstream(dir / "bad.jsonl") << R"({"audio": "clip0.wav", "duration": 1.6})" << '\n';
    const ForgeRun run = test::run_forge("train asr --manifest " + quoted((dir / "bad.jsonl").string()) + " --out " +
                                         quoted((dir / "run").string()) + kTinyModel + " --steps 2");
    EXPECT_NE(run.status, 0);
    EXPECT_THAT(run.err, HasSubstr("bad.jsonl"));
    EXPECT_THAT(run.err, HasSubstr("text"));
    const ForgeRun heads = test::run_forge("train asr --manifest " + quoted((dir / "train.jsonl").string()) +
                                           " --d-model 30 --heads 4 --steps 2");
    EXPECT_EQ(heads.status, 2) << heads.err;  // flags that disagree: a usage error
    EXPECT_THAT(heads.err, HasSubstr("--d-model: 30 must be even and a multiple of --heads 4"));
    fs::remove_all(dir);
}

}  // namespace
}  // namespace forge
