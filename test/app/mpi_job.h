// Running forge as an MPI job in the data-parallel tests (train_gpt_mpi_test.cpp,
// train_lora_mpi_test.cpp): the fixture, mpirun's command line, a blocking run with stderr to
// a file, and the losses a run folder's log.jsonl recorded.
#pragma once

#include "test/app/forge_binary.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace forge::test {

// A test that runs forge jobs in a scratch folder of its own (base_), skipped where forge was
// built without MPI.
class MpiJobTest : public ::testing::Test {
protected:
    explicit MpiJobTest(std::string folder_prefix) : prefix_(std::move(folder_prefix)) {}
    void SetUp() override {
#if !FORGE_WITH_MPI
        GTEST_SKIP() << "forge was built without MPI (meson -Dmpi=disabled, or libopenmpi-dev missing)";
#endif
        ASSERT_FALSE(std::string(FORGE_MPIRUN).empty()) << "forge has MPI but meson found no mpirun: install openmpi-bin";
        base_ = std::filesystem::path(::testing::TempDir()) / (prefix_ + std::to_string(::getpid()));
        std::filesystem::remove_all(base_);
        std::filesystem::create_directories(base_);
    }
    void TearDown() override { std::filesystem::remove_all(base_); }
    std::filesystem::path base_;

private:
    std::string prefix_;
};

// mpirun's own flags; as root Open MPI refuses to start without --allow-run-as-root.
inline std::vector<std::string> mpirun(int ranks, const std::vector<std::string>& command) {
    std::vector<std::string> args = {FORGE_MPIRUN, "--oversubscribe", "-np", std::to_string(ranks)};
    if (::geteuid() == 0) args.push_back("--allow-run-as-root");
    args.insert(args.end(), command.begin(), command.end());
    return args;
}

inline int exit_status(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

// Runs `args` to the end; returns its exit status.
inline int run_to_end(const std::vector<std::string>& args, const std::filesystem::path& stderr_file) {
    int status = 0;
    waitpid(spawn_process(args, stderr_file.string()), &status, 0);
    return exit_status(status);
}

// The "loss" of every line of DIR/log.jsonl that has one (a LoRA run's step-0 line has none).
inline std::vector<double> logged_losses(const std::filesystem::path& dir) {
    std::vector<double> out;
    std::ifstream in(dir / "log.jsonl");
    for (std::string line; std::getline(in, line);) {
        const auto object = nlohmann::json::parse(line);
        if (object.contains("loss")) out.push_back(object.at("loss").get<double>());
    }
    return out;
}

}  // namespace forge::test
