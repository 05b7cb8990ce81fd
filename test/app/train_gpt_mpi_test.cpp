// `mpirun -np P forge train gpt`: P ranks of B/P rows give the losses and the model of one
// process with B rows in P micro-batches, bit for bit (P = 1, 2, 4); killing one rank ends the
// job within seconds and leaves a checkpoint that resumes with another number of ranks.
// Skipped only where forge was built without MPI.
#include "test/app/mpi_job.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace forge::test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const std::string kData = std::string(FORGE_TEST_DATA_DIR) + "/gpt/corpus.txt";
const std::string kTokenizer = std::string(FORGE_TEST_DATA_DIR) + "/llm/qwen3-f32.gguf";

std::vector<std::string> forge_train(const fs::path& out, int steps, const std::string& micro_batch = "") {
    std::vector<std::string> args = {FORGE_EXE, "--threads", "1", "train", "gpt", "--data", kData, "--tokenizer",
                                     kTokenizer, "--out", out.string(), "--depth", "1", "--seq-len", "32",
                                     "--batch", "4", "--steps", std::to_string(steps), "--seed", "5",
                                     "--eval-every", "25", "--checkpoint-every", "2", "--eval-tokens", "128",
                                     "--matrix-lr", "2", "--embedding-lr", "20", "--unembedding-lr", "0.4"};
    if (!micro_batch.empty()) args.insert(args.end(), {"--micro-batch", micro_batch});
    return args;
}

pid_t spawn(const std::vector<std::string>& args, const fs::path& stderr_file) {
    return spawn_process(args, stderr_file.string());
}

int run(const std::vector<std::string>& args, const fs::path& stderr_file) { return test::run_to_end(args, stderr_file); }

std::vector<double> losses(const fs::path& dir) { return test::logged_losses(dir); }

// The process of rank `rank` among mpirun's children (Open MPI starts local ranks directly).
pid_t child_of_rank(pid_t launcher, int rank) {
    const std::string wanted = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank);
    for (const auto& task : fs::directory_iterator(fs::path("/proc") / std::to_string(launcher) / "task")) {
        std::ifstream children(task.path() / "children");
        for (pid_t child; children >> child;) {
            std::ifstream env_file(fs::path("/proc") / std::to_string(child) / "environ", std::ios::binary);
            std::string entry;
            while (std::getline(env_file, entry, '\0')) {
                if (entry == wanted) return child;
            }
        }
    }
    return -1;
}

class TrainGptMpi : public MpiJobTest {
protected:
    TrainGptMpi() : MpiJobTest("forge_gpt_mpi_") {}
};

TEST_F(TrainGptMpi, RanksOfBOverPRowsEqualOneProcessWithPMicroBatches) {
    const fs::path err = base_ / "stderr.txt";
    for (const int ranks : {1, 2, 4}) {
        const std::string rows = std::to_string(4 / ranks);
        const fs::path one = base_ / ("one_micro" + rows), job = base_ / ("ranks" + std::to_string(ranks));
        ASSERT_EQ(run(forge_train(one, 6, rows), err), 0) << read_file(err.string());
        ASSERT_EQ(run(mpirun(ranks, forge_train(job, 6)), err), 0) << read_file(err.string());
        const auto expected = losses(one);
        ASSERT_EQ(expected.size(), 6u);
        EXPECT_EQ(losses(job), expected) << ranks << " ranks";
        EXPECT_EQ(read_file((job / "model.gguf").string()), read_file((one / "model.gguf").string())) << ranks << " ranks";
    }
}

TEST_F(TrainGptMpi, ABatchThatDoesNotSplitOverTheRanksIsAClearErrorNotAHang) {
    const fs::path err = base_ / "stderr.txt";
    auto args = forge_train(base_ / "uneven", 2);
    const auto batch = std::find(args.begin(), args.end(), "--batch");
    *(batch + 1) = "6";  // 6 rows over 4 ranks
    const auto start = Clock::now();
    EXPECT_NE(run(mpirun(4, args), err), 0);
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 60.0);
    const std::string message = read_file(err.string());
    EXPECT_NE(message.find("--batch 6 does not split evenly over 4 ranks"), std::string::npos) << message;
    EXPECT_NE(message.find("error on rank"), std::string::npos) << message;
}

TEST_F(TrainGptMpi, KillingOneRankEndsTheJobAndItsCheckpointResumesOnOneProcess) {
    constexpr int kSteps = 100;
    const fs::path whole = base_ / "whole", job = base_ / "job", err = base_ / "job_stderr.txt";
    ASSERT_EQ(run(forge_train(whole, kSteps, "2"), base_ / "whole_stderr.txt"), 0);

    const pid_t launcher = spawn(mpirun(2, forge_train(job, kSteps)), err);
    const auto started = Clock::now();
    while (!fs::exists(job / "checkpoint.safetensors") && Clock::now() - started < std::chrono::seconds(60)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    const pid_t rank1 = child_of_rank(launcher, 1);
    ASSERT_GT(rank1, 0) << "no rank 1 among mpirun's children";
    ::kill(rank1, SIGKILL);
    const auto killed = Clock::now();

    int status = 0;
    while (waitpid(launcher, &status, WNOHANG) == 0 && Clock::now() - killed < std::chrono::seconds(30)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - killed).count();
    if (seconds >= 30) {  // do not leave a hung job behind
        ::kill(launcher, SIGKILL);
        waitpid(launcher, &status, 0);
    }
    EXPECT_LT(seconds, 10.0) << "the job outlived its killed rank";
    EXPECT_NE(exit_status(status), 0);
    const std::string message = read_file(err.string());
    EXPECT_NE(message.find("another rank of this job failed"), std::string::npos) << message;
    std::printf("the job ended %.2f s after rank 1 was killed\n", seconds);

    // One process takes over from the two-rank checkpoint; its micro-batches of 2 rows are
    // the two ranks' shares, so the run ends exactly where the uninterrupted one did.
    auto resume = forge_train(job, kSteps, "2");
    resume.push_back("--resume");
    ASSERT_EQ(run(resume, err), 0) << read_file(err.string());
    EXPECT_EQ(losses(job), losses(whole));
    EXPECT_EQ(read_file((job / "model.gguf").string()), read_file((whole / "model.gguf").string()));
}

}  // namespace
}  // namespace forge::test
