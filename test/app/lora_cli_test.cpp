// `--lora` and `forge lora merge` driven as a user does: forge logits with an adapter against
// llama.cpp's logits with it (test/data/llm/lora/), scale 0 answering as the base in forge
// chat, a merged file's logits against the adapter applied at run time, and adapters that do
// not fit or flags that do not parse ending forge with a message and a non-zero status.
#include "test/app/forge_binary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <vector>

namespace forge {
namespace {

using ::testing::HasSubstr;
using test::ForgeRun;
using test::quoted;

const std::string kData = FORGE_LLM_TEST_DATA;
const std::string kBase = kData + "/llama-f32.gguf";
const std::string kAdapterA = kData + "/lora/llama-f32.lora-a.gguf";
const std::string kAdapterB = kData + "/lora/llama-f32.lora-b.gguf";
// The goldens' prompt (tools/llm_goldens/regen.py).
const std::string kTokens = "72,101,108,108,111,44,256,300,350,400,450,500,12,33,261,270,280,290,310,320,330,340,509,77";

std::string temp(const std::string& name) { return (std::filesystem::temp_directory_path() / ("forge_lora_cli_" + name)).string(); }

std::vector<float> floats(const std::string& path) {
    const std::string bytes = test::read_file(path);
    std::vector<float> values(bytes.size() / sizeof(float));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
    return values;
}

std::vector<float> logits(const std::string& model, const std::string& extra = "") {
    const std::string out = temp("logits.f32");
    const ForgeRun run = test::run_forge("logits " + quoted(model) + " --tokens " + kTokens + " --out " + quoted(out) + extra);
    EXPECT_EQ(run.status, 0) << run.err;
    std::vector<float> values = floats(out);
    std::filesystem::remove(out);
    return values;
}

double max_relative(const std::vector<float>& x, const std::vector<float>& y) {
    EXPECT_EQ(x.size(), y.size());
    double max_y = 0, max_diff = 0;
    for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
        max_y = std::max(max_y, std::abs(double(y[i])));
        max_diff = std::max(max_diff, std::abs(double(x[i]) - y[i]));
    }
    return max_diff / max_y;
}

// Bounds: 10x the worst measured; the same computations as llm_lora_test's (lora_runtime_test.cpp,
// lora_merge_test.cpp), which print them: 1.19e-6 and 8.23e-7 (simd build).
TEST(LoraCli, LogitsWithTwoAdaptersMatchLlamaCpp) {
    const std::vector<float> ours = logits(kBase, " --lora " + quoted(kAdapterA + ":0.5") + " --lora " + quoted(kAdapterB + ":2"));
    EXPECT_LE(max_relative(ours, floats(kData + "/lora/llama-f32.lora-ab.logits.f32")), 1.2e-5);  // 1.19e-6
}

TEST(LoraCli, MergedFileGivesTheRuntimeLogits) {
    const std::string merged = temp("merged.gguf");
    const ForgeRun run = test::run_forge("lora merge " + quoted(kBase) + " " + quoted(kAdapterA) + " " + quoted(merged));
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_LE(max_relative(logits(merged), logits(kBase, " --lora " + quoted(kAdapterA))), 8.3e-6);  // 8.23e-7
    std::filesystem::remove(merged);
}

TEST(LoraCli, ScaleZeroChatsAsTheBase) {
    const std::string chat = "chat " + quoted(kBase) + " --raw --temp 0 -n 8 --ctx 64 -p Hello";
    const ForgeRun base = test::run_forge(chat);
    const ForgeRun zero = test::run_forge(chat + " --lora " + quoted(kAdapterA + ":0"));
    const ForgeRun one = test::run_forge(chat + " --lora " + quoted(kAdapterA));
    ASSERT_EQ(base.status, 0) << base.err;
    EXPECT_EQ(zero.out, base.out) << zero.err;
    EXPECT_NE(one.out, base.out) << one.err;
}

TEST(LoraCli, AnAdapterForAnotherModelIsAnError) {
    const ForgeRun run = test::run_forge("logits " + quoted(kData + "/qwen3-f32.gguf") + " --tokens 1,2 --out " +
                                         quoted(temp("never.f32")) + " --lora " + quoted(kAdapterA));
    EXPECT_NE(run.status, 0);
    EXPECT_THAT(run.err, HasSubstr("llama-f32.lora-a.gguf: the adapter is for a llama model"));
    EXPECT_FALSE(std::filesystem::exists(temp("never.f32")));
}

TEST(LoraCli, BadFlagsAreErrors) {
    const ForgeRun scale = test::run_forge("logits " + quoted(kBase) + " --tokens 1 --out " + quoted(temp("x.f32")) +
                                           " --lora " + quoted(kAdapterA + ":half"));
    EXPECT_NE(scale.status, 0);
    EXPECT_THAT(scale.err, HasSubstr("FILE.gguf:SCALE"));
    const ForgeRun model = test::run_forge("logits " + quoted(kBase) + " --tokens 1 --out " + quoted(temp("x.f32")) +
                                           " --lora " + quoted(kBase));
    EXPECT_NE(model.status, 0);
    EXPECT_THAT(model.err, HasSubstr("general.type"));
    const ForgeRun merge = test::run_forge("lora merge " + quoted(kBase) + " " + quoted(temp("out.gguf")));
    EXPECT_NE(merge.status, 0);
    const ForgeRun serve = test::run_forge("serve " + quoted(kBase) + " -m " + quoted(kBase) + " --lora " + quoted(kAdapterA));
    EXPECT_NE(serve.status, 0);
    EXPECT_THAT(serve.err, HasSubstr("--lora applies adapters to one model"));
}

}  // namespace
}  // namespace forge
