// `forge train lora` as a user runs it, on the committed tiny qwen3 (test/data/llm/qwen3-f32.gguf)
// and text: --json, the run folder (adapter.gguf that the adapter reader takes, log.jsonl,
// checkpoint), a finished run not trained over without --force or --resume, Ctrl-C stopping
// with a checkpoint and exit 0, and bad flags (the schedule's too) as one `forge: error:` line
// with exit status 2. Under mpirun: train_lora_mpi_test.cpp.
#include "test/app/forge_binary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace forge {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using test::ForgeRun;
using test::quoted;

const fs::path kData = FORGE_TEST_DATA_DIR;

std::string tiny_run(const fs::path& out, int steps) {
    return "train lora --model " + quoted((kData / "llm" / "qwen3-f32.gguf").string()) + " --text " +
           quoted((kData / "gpt" / "corpus.txt").string()) + " --seq-len 32 --batch 4 --rank 4 --lr 1e-2 --steps " +
           std::to_string(steps) + " --eval-every 5 --checkpoint-every 5 --out " + quoted(out.string());
}

fs::path scratch(const std::string& name) {
    const fs::path dir = fs::path(::testing::TempDir()) / ("forge_lora_cli_" + std::to_string(::getpid()) + "_" + name);
    fs::remove_all(dir);
    return dir;
}

TEST(TrainLoraCli, JsonRunFolderAndFinishedRunGuard) {
    const fs::path out = scratch("json");
    const ForgeRun run = test::run_forge(tiny_run(out, 10) + " --json");
    ASSERT_EQ(run.status, 0) << run.err;
    const auto result = nlohmann::json::parse(run.out);
    EXPECT_EQ(result["steps"], 10);
    EXPECT_EQ(result["adapter"], (out / "adapter.gguf").string());
    EXPECT_LT(result["val_loss"].get<double>(), 6.0);  // the base's is 6.3 nats on this text
    for (const char* file : {"adapter.gguf", "checkpoint.safetensors", "log.jsonl"}) EXPECT_TRUE(fs::exists(out / file));
    // The adapter is what `forge gguf info` reads as llama.cpp's LoRA format.
    const ForgeRun info = test::run_forge("gguf info " + quoted((out / "adapter.gguf").string()));
    ASSERT_EQ(info.status, 0) << info.err;
    EXPECT_THAT(info.out, HasSubstr("adapter.lora.alpha"));
    EXPECT_THAT(info.out, HasSubstr("blk.1.ffn_down.weight.lora_b"));

    const ForgeRun again = test::run_forge(tiny_run(out, 10));
    EXPECT_NE(again.status, 0);
    EXPECT_THAT(again.err, HasSubstr("a finished run is there"));
    const ForgeRun resumed = test::run_forge(tiny_run(out, 10) + " --resume --json");
    ASSERT_EQ(resumed.status, 0) << resumed.err;
    EXPECT_EQ(nlohmann::json::parse(resumed.out)["steps"], 10);
}

TEST(TrainLoraCli, CtrlCWritesACheckpointAndExitsZero) {
    const fs::path out = scratch("sigint");
    const std::string script = std::string(FORGE_EXE) + " " + tiny_run(out, 1000000) + " > " +
                               quoted((out.string() + ".out")) + " 2>&1 & pid=$!; sleep 3; kill -INT $pid; wait $pid";
    const int raw = std::system(("sh -c " + quoted(script)).c_str());
    ASSERT_TRUE(WIFEXITED(raw));
    EXPECT_EQ(WEXITSTATUS(raw), 0) << test::read_file(out.string() + ".out");
    EXPECT_THAT(test::read_file(out.string() + ".out"), HasSubstr("--resume"));
    EXPECT_TRUE(fs::exists(out / "checkpoint.safetensors"));
    EXPECT_FALSE(fs::exists(out / "adapter.gguf"));
}

TEST(TrainLoraCli, BadFlagsAreUsageErrors) {
    const std::string model = " --model " + quoted((kData / "llm" / "qwen3-f32.gguf").string());
    const std::string text = " --text " + quoted((kData / "gpt" / "corpus.txt").string());
    for (const std::string& args : {model + text + " --targets q,x", model, model + text + " --batch 4 --micro-batch 3",
                                    model + text + " --rank 0", model + text + " --dropout 1.5",
                                    model + text + " --warmup-ratio 1.5", model + text + " --final-lr-frac nan",
                                    model + text + " --warmup-ratio 0.6 --warmdown-ratio 0.6",
                                    model + text + " --checkpointing some"}) {
        const ForgeRun run = test::run_forge("train lora" + args + " --out " + quoted(scratch("bad").string()));
        EXPECT_EQ(run.status, 2) << args << "\n" << run.err;
        EXPECT_THAT(run.err, HasSubstr("forge: error:")) << args;
    }
    const ForgeRun moe = test::run_forge("train lora --model " + quoted((kData / "llm" / "qwen3moe-f32.gguf").string()) +
                                         text + " --out " + quoted(scratch("moe").string()));
    EXPECT_NE(moe.status, 0);
    EXPECT_THAT(moe.err, HasSubstr("not qwen3moe"));
}

}  // namespace
}  // namespace forge
