// `forge train tokenizer` and `forge tokenize --file/--count` as a user runs them: the JSON
// result, a GGUF that `forge tokenize` reads, and bad input (a missing file, a vocabulary
// too small or too large for the text, an unwritable output) as one `forge: error:` line with
// exit status 1 (2 for a size no text allows: a usage error) and no output file touched.
#include "test/app/forge_binary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <string>

namespace forge {
namespace {

using ::testing::HasSubstr;
using test::ForgeRun;
using test::quoted;

const std::string kText = std::string(FORGE_LLM_TEXT_DATA) + "/bpe_training_text.txt";

std::string temp_path(const std::string& name) { return ::testing::TempDir() + "/" + std::to_string(::getpid()) + "_" + name; }

ForgeRun train(const std::string& args) { return test::run_forge("train tokenizer --data " + quoted(kText) + " " + args); }

TEST(TrainTokenizerCli, WritesATokenizerThatForgeTokenizeReads) {
    const std::string out = temp_path("tok.gguf");
    const ForgeRun run = train("--vocab-size 512 --json --out " + quoted(out));
    ASSERT_EQ(run.status, 0) << run.err;
    const auto result = nlohmann::json::parse(run.out);
    EXPECT_EQ(result["vocab_size"], 512);
    EXPECT_EQ(result["merges"], 512 - 256 - 5);
    EXPECT_EQ(result["pre_tokenizer"], "llama-bpe");
    EXPECT_GT(result["bytes_per_token"].get<double>(), 2.0);

    // BOS (<|bos|>, id 507) first, then the special tokens as single ids.
    const ForgeRun ids = test::run_forge("tokenize " + quoted(out) + " --text '<|user_start|>the<|user_end|>'");
    ASSERT_EQ(ids.status, 0) << ids.err;
    EXPECT_THAT(ids.out, ::testing::StartsWith("507 508 "));
    EXPECT_THAT(ids.out, ::testing::EndsWith(" 509\n"));

    // --count over the training file: the same number of tokens the trainer reported, plus BOS.
    const ForgeRun count = test::run_forge("tokenize " + quoted(out) + " --no-special --count --file " + quoted(kText));
    ASSERT_EQ(count.status, 0) << count.err;
    EXPECT_THAT(count.out, ::testing::StartsWith(std::to_string(result["tokens"].get<std::int64_t>() + 1) + " tokens, "));
    std::remove(out.c_str());
}

TEST(TrainTokenizerCli, BadInputIsOneErrorLineAndLeavesTheOutputAlone) {
    const std::string out = temp_path("kept.gguf");
    std::ofstream(out) << "previous contents";
    const struct {
        std::string args, message;
        int status;  // 2: a usage error, refused at parse time
    } cases[] = {
        {"--vocab-size 100 --out " + quoted(out), "--vocab-size: Value 100 not in range", 2},
        {"--vocab-size 100000 --out " + quoted(out), "ask for at most", 1},
        {"--vocab-size 512 --out /nonexistent-dir/tok.gguf", "/nonexistent-dir/tok.gguf", 1},
    };
    for (const auto& c : cases) {
        const ForgeRun run = train(c.args);
        EXPECT_EQ(run.status, c.status) << c.args;
        EXPECT_THAT(run.err, HasSubstr("forge: error: ")) << c.args;
        EXPECT_THAT(run.err, HasSubstr(c.message)) << c.args;
        EXPECT_EQ(test::read_file(out), "previous contents") << c.args;
    }
    const ForgeRun missing = test::run_forge("train tokenizer --data /no/such.txt --vocab-size 512 --out " + quoted(out));
    EXPECT_NE(missing.status, 0);
    EXPECT_THAT(missing.err, HasSubstr("/no/such.txt"));
    std::remove(out.c_str());
}

}  // namespace
}  // namespace forge
