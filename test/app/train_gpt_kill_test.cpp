// `forge train gpt` killed with SIGKILL at random moments, again and again, then resumed
// to the end: the last checkpoint is always usable and the run's losses and exported model
// equal an uninterrupted run's, bit for bit. Ctrl-C (SIGINT) instead stops it with a
// checkpoint of the step it was at and exit status 0, and --resume finishes the same run.
#include "test/app/forge_binary.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace forge::test {
namespace {

const std::string kData = std::string(FORGE_TEST_DATA_DIR) + "/gpt/corpus.txt";
const std::string kTokenizer = std::string(FORGE_TEST_DATA_DIR) + "/llm/qwen3-f32.gguf";

std::vector<std::string> train_args(const std::filesystem::path& out, bool resume, int checkpoint_every = 2) {
    std::vector<std::string> args = {FORGE_EXE, "train", "gpt", "--data", kData, "--tokenizer", kTokenizer,
                                     "--out", out.string(), "--depth", "1", "--seq-len", "32", "--batch", "4",
                                     "--steps", "40", "--seed", "3", "--eval-every", "10", "--checkpoint-every",
                                     std::to_string(checkpoint_every), "--eval-tokens", "128", "--matrix-lr", "2", "--embedding-lr", "20",
                                     "--unembedding-lr", "0.4"};
    if (resume) args.push_back("--resume");
    return args;
}

pid_t spawn(const std::vector<std::string>& args) { return spawn_process(args); }

// Runs to the end; returns the exit status.
int run_to_end(const std::vector<std::string>& args) {
    int status = 0;
    waitpid(spawn(args), &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<double> losses(const std::filesystem::path& dir) {
    std::vector<double> out;
    std::ifstream in(dir / "log.jsonl");
    for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line).at("loss").get<double>());
    return out;
}

TEST(TrainGptKill, RepeatedKillNineThenResumeEqualsAnUninterruptedRun) {
    const auto base = std::filesystem::path(::testing::TempDir()) / ("forge_gpt_kill_" + std::to_string(::getpid()));
    const auto whole = base / "whole", killed = base / "killed";
    std::filesystem::remove_all(base);
    const auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(run_to_end(train_args(whole, false)), 0);
    const double whole_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

    // Kill at random moments within the first half of what a whole run takes on this machine (a
    // fixed range of milliseconds let a fast, quiet machine finish before the first kill).
    std::mt19937 rng(12345);
    std::uniform_real_distribution<double> delay_ms(0.05 * whole_ms, 0.5 * whole_ms);
    int kills = 0;
    for (int attempt = 0; attempt < 6; ++attempt) {
        const bool resume = std::filesystem::exists(killed / "checkpoint.safetensors");
        const pid_t pid = spawn(train_args(killed, resume));
        std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(delay_ms(rng)));
        ::kill(pid, SIGKILL);
        int status = 0;
        waitpid(pid, &status, 0);
        if (WIFSIGNALED(status)) ++kills;
        if (WIFEXITED(status)) {  // finished before the kill: that run is complete
            ASSERT_EQ(WEXITSTATUS(status), 0);
            break;
        }
    }
    EXPECT_GT(kills, 0);
    std::printf("killed %d times, then resumed\n", kills);
    const bool resume = std::filesystem::exists(killed / "checkpoint.safetensors");
    ASSERT_EQ(run_to_end(train_args(killed, resume)), 0);

    EXPECT_EQ(losses(killed), losses(whole));
    EXPECT_EQ(read_file((killed / "model.gguf").string()), read_file((whole / "model.gguf").string()));
    std::filesystem::remove_all(base);
}

std::size_t log_lines(const std::filesystem::path& dir) {
    std::ifstream in(dir / "log.jsonl");
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
}

TEST(TrainGptKill, CtrlCWritesACheckpointExitsZeroAndResumeFinishesTheSameRun) {
    const auto base = std::filesystem::path(::testing::TempDir()) / ("forge_gpt_ctrl_c_" + std::to_string(::getpid()));
    const auto whole = base / "whole", stopped = base / "stopped";
    const auto out_txt = base / "stdout.txt";
    std::filesystem::remove_all(base);
    ASSERT_EQ(run_to_end(train_args(whole, false)), 0);

    // No periodic checkpoint before the end: the one there after Ctrl-C is Ctrl-C's.
    std::string command = "exec";
    for (const std::string& a : train_args(stopped, false, 1000)) command.append(" ").append(quoted(a));
    command.append(" >").append(quoted(out_txt.string()));
    const pid_t pid = spawn({"/bin/sh", "-c", command});
    while (log_lines(stopped) < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ::kill(pid, SIGINT);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    const std::string printed = read_file(out_txt.string());
    if (printed.find("interrupted at step") == std::string::npos) GTEST_SKIP() << "finished before the SIGINT: " << printed;
    EXPECT_NE(printed.find("--resume"), std::string::npos) << printed;
    EXPECT_TRUE(std::filesystem::exists(stopped / "checkpoint.safetensors"));
    EXPECT_FALSE(std::filesystem::exists(stopped / "model.gguf"));  // not finished: a plain rerun is not refused

    ASSERT_EQ(run_to_end(train_args(stopped, true, 1000)), 0);
    EXPECT_EQ(losses(stopped), losses(whole));
    EXPECT_EQ(read_file((stopped / "model.gguf").string()), read_file((whole / "model.gguf").string()));
    std::filesystem::remove_all(base);
}

}  // namespace
}  // namespace forge::test
