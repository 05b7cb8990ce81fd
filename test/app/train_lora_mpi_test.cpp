// `mpirun -np P forge train lora`: P ranks of B/P rows give the losses, the checkpoint and the
// adapter of one process with B rows in P micro-batches, bit for bit (P = 2, 4; dropout on, so
// each rank's micro-batches must draw the masks of their place in the step); a checkpoint of a
// two-rank job resumes on one process; a batch or micro-batch that does not split over the
// ranks is a clear error, not a hang. Skipped only where forge was built without MPI.
#include "test/app/mpi_job.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace forge::test {
namespace {

namespace fs = std::filesystem;

const std::string kModel = std::string(FORGE_TEST_DATA_DIR) + "/llm/qwen3-f32.gguf";
const std::string kText = std::string(FORGE_TEST_DATA_DIR) + "/gpt/corpus.txt";

std::vector<std::string> forge_lora(const fs::path& out, int steps, int micro_batch) {
    return {FORGE_EXE, "--threads", "1", "train", "lora", "--model", kModel, "--text", kText, "--out", out.string(),
            "--seq-len", "24", "--batch", "4", "--micro-batch", std::to_string(micro_batch), "--rank", "4",
            "--alpha", "8", "--dropout", "0.1", "--seed", "3", "--lr", "1e-2", "--steps", std::to_string(steps),
            "--warmup-ratio", "0.34", "--eval-every", "3", "--checkpoint-every", "2"};
}

class TrainLoraMpi : public MpiJobTest {
protected:
    TrainLoraMpi() : MpiJobTest("forge_lora_mpi_") {}
};

TEST_F(TrainLoraMpi, RanksOfBOverPRowsEqualOneProcessWithPMicroBatches) {
    const fs::path err = base_ / "stderr.txt";
    for (const int ranks : {2, 4}) {
        const int rows = 4 / ranks;
        const fs::path one = base_ / ("one_micro" + std::to_string(rows)), job = base_ / ("ranks" + std::to_string(ranks));
        ASSERT_EQ(run_to_end(forge_lora(one, 6, rows), err), 0) << read_file(err.string());
        ASSERT_EQ(run_to_end(mpirun(ranks, forge_lora(job, 6, rows)), err), 0) << read_file(err.string());
        const auto expected = logged_losses(one);
        ASSERT_EQ(expected.size(), 6u);
        EXPECT_EQ(logged_losses(job), expected) << ranks << " ranks";
        for (const char* file : {"adapter.gguf", "checkpoint.safetensors"})
            EXPECT_EQ(read_file((job / file).string()), read_file((one / file).string())) << file << ", " << ranks << " ranks";
    }
}

// Three steps on two ranks, then three more on one process with micro-batches of the ranks'
// shares: the uninterrupted single-process run of six steps (a constant rate after the warmup,
// so the longer run's first three rates are the shorter one's).
TEST_F(TrainLoraMpi, ACheckpointOfTwoRanksResumesOnOneProcess) {
    const fs::path err = base_ / "stderr.txt", whole = base_ / "whole", job = base_ / "job";
    auto constant = [](std::vector<std::string> args) {
        *(std::find(args.begin(), args.end(), "--warmup-ratio") + 1) = "0";
        args.insert(args.end(), {"--warmdown-ratio", "0"});
        return args;
    };
    ASSERT_EQ(run_to_end(constant(forge_lora(whole, 6, 2)), err), 0) << read_file(err.string());
    ASSERT_EQ(run_to_end(mpirun(2, constant(forge_lora(job, 3, 2))), err), 0) << read_file(err.string());
    auto resume = constant(forge_lora(job, 6, 2));
    resume.push_back("--resume");
    ASSERT_EQ(run_to_end(resume, err), 0) << read_file(err.string());
    EXPECT_EQ(logged_losses(job), logged_losses(whole));
    EXPECT_EQ(read_file((job / "adapter.gguf").string()), read_file((whole / "adapter.gguf").string()));
}

TEST_F(TrainLoraMpi, ABatchOrMicroBatchThatDoesNotSplitOverTheRanksIsAClearError) {
    const fs::path err = base_ / "stderr.txt";
    EXPECT_NE(run_to_end(mpirun(3, forge_lora(base_ / "uneven", 2, 1)), err), 0);
    std::string message = read_file(err.string());
    EXPECT_NE(message.find("--batch 4 does not split evenly over 3 ranks"), std::string::npos) << message;
    EXPECT_NE(message.find("error on rank"), std::string::npos) << message;

    EXPECT_NE(run_to_end(mpirun(2, forge_lora(base_ / "micro", 2, 4)), err), 0);
    message = read_file(err.string());
    EXPECT_NE(message.find("--micro-batch 4 does not divide the 2 rows of each rank's step"), std::string::npos)
        << message;
}

}  // namespace
}  // namespace forge::test
