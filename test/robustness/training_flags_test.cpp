// The numeric flags of the training commands (`train gpt|sft|asr|tokenizer`, `nam train`),
// quantize's TYPE and bench compare's --threshold: 0, a negative, NaN, infinity or an absurd
// value is a usage error at parse time (exit 2, the flag named, a hint to --help). They were
// a SIGFPE (`--seq-len 0`), a silent default (`--steps 0` trained 57 280 steps), a model of
// NaNs with exit 0 (`--matrix-lr nan`), one step for `--epochs 1e300`, or exit 1.
//
// The inputs every command is given are just good enough to parse; were a flag let through,
// the run would stop at them with exit 1 (too little text, a model that is no forge GPT, an
// empty manifest) instead of training, so an old binary fails these tests quickly.
#include "test/robustness/hostile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace forge::test {
namespace {

using ::testing::HasSubstr;

const std::string kModel = std::string(FORGE_LLM_TEST_DATA) + "/qwen3-f32.gguf";

struct Case {
    std::string flag;                 // named in the error
    std::vector<std::string> values;  // each refused
};

// `command` with each bad value of each case appended: a usage error naming the flag.
void expect_each_refused(const std::string& command, const std::vector<Case>& cases) {
    for (const Case& c : cases) {
        for (const std::string& value : c.values) {
            SCOPED_TRACE(command + " " + c.flag + " " + value);
            expect_usage_error(run_bounded(command + " " + c.flag + " " + value), c.flag);
        }
    }
}

fs::path text_file() { return write_file("flags_corpus.txt", "A few words of text.\n"); }

// A regular file where a run folder is asked for.
fs::path a_file() { return write_file("not_a_folder", "a file\n"); }

TEST(TrainingFlags, GptFlagsAreRanged) {
    const std::string gpt = "train gpt --data " + quoted(text_file()) + " --tokenizer " + quoted(kModel);
    expect_each_refused(gpt, {
        {"--depth", {"0", "-1", "65"}},
        {"--head-dim", {"0", "96"}},
        {"--seq-len", {"0", "1", "-5", "100000"}},
        {"--batch", {"0", "-1", "100000"}},
        {"--micro-batch", {"0", "-2"}},
        {"--steps", {"0", "-1", "1e300", "99999999999"}},
        {"--tokens", {"0", "-1"}},
        {"--eval-tokens", {"0"}},
        {"--eval-every", {"0", "-1"}},
        {"--checkpoint-every", {"0"}},
        {"--matrix-lr", {"nan", "inf", "-inf", "0", "-0.1", "1e9"}},
        {"--embedding-lr", {"nan", "0"}},
        {"--unembedding-lr", {"inf", "-1"}},
        {"--warmdown-ratio", {"nan", "-0.1", "1.5"}},
        {"--grad-clip", {"nan", "-1", "inf"}},
    });
    // Flags that disagree with each other.
    expect_usage_error(run_bounded(gpt + " --depth 1 --head-dim 128"), "--head-dim");
    expect_usage_error(run_bounded(gpt + " --batch 6 --micro-batch 4"), "--micro-batch");
}

TEST(TrainingFlags, SftFlagsAreRanged) {
    const fs::path data = write_file("flags_chat.jsonl", R"({"messages":[{"role":"user","content":"Hi"},)"
                                                         R"({"role":"assistant","content":"Hello."}]})"
                                                         "\n");
    const std::string sft = "train sft --model " + quoted(kModel) + " --data " + quoted(data);
    expect_each_refused(sft, {
        {"--epochs", {"0", "-1", "nan", "inf", "1e300"}},
        {"--seq-len", {"0", "1"}},
        {"--batch", {"0"}},
        {"--micro-batch", {"0"}},
        {"--sample-tokens", {"0", "-1"}},
        {"--eval-every", {"0"}},
        {"--matrix-lr", {"nan"}},
    });
}

TEST(TrainingFlags, AsrFlagsAreRanged) {
    const std::string asr = "train asr --manifest " + quoted(write_file("flags_manifest.jsonl", ""));
    expect_each_refused(asr, {
        {"--vocab", {"0", "27", "-1"}},
        {"--mels", {"0", "7", "100000"}},
        {"--d-model", {"0", "-2"}},
        {"--layers", {"0"}},
        {"--heads", {"0"}},
        {"--ff-dim", {"0"}},
        {"--conv-kernel", {"0", "4"}},
        {"--subsampling-channels", {"0"}},
        {"--steps", {"0", "-1"}},
        {"--batch-seconds", {"0", "nan", "inf", "-1"}},
        {"--lr", {"0", "nan", "inf"}},
        {"--warmup", {"-1"}},
        {"--weight-decay", {"nan", "-1"}},
        {"--grad-clip", {"0", "nan"}},  // a bound of 0 zeroes every gradient
        {"--checkpoint-every", {"0"}},
        {"--log-every", {"0"}},  // was a division by zero at the first step
    });
    expect_usage_error(run_bounded(asr + " --d-model 30 --heads 4"), "--d-model");
}

TEST(TrainingFlags, TokenizerAndNamFlagsAreRanged) {
    expect_each_refused("train tokenizer --data " + quoted(text_file()) + " --out " +
                            quoted(scratch_dir() / "flags_tok.gguf"),
                        {{"--vocab-size", {"0", "-1", "100", "1000000"}}});
    const fs::path wav = write_file("flags_di.wav", "not audio");
    expect_each_refused("nam train --input " + quoted(wav) + " --output " + quoted(wav) + " --out " +
                            quoted(scratch_dir() / "flags.nam"),
                        {
                            {"--epochs", {"0", "-1"}},
                            {"--batch", {"0"}},
                            {"--lr", {"0", "nan", "inf", "-0.01"}},
                            {"--ny", {"0"}},
                            {"--latency", {"1000000", "-1000000"}},
                            {"--arch", {"bogus"}},
                        });
}

// `--out FILE` reached std::filesystem::create_directories: "filesystem error: cannot create
// directories: File exists". Now the path is named at parse time, also for a file in place of
// a folder above the run's.
TEST(TrainingFlags, ARunFolderThatIsAFileIsNamed) {
    const fs::path file = a_file();
    const std::string gpt = "train gpt --data " + quoted(text_file()) + " --tokenizer " + quoted(kModel);
    for (const std::string& args : {gpt + " --out " + quoted(file), gpt + " --out " + quoted(file / "run"),
                                    "train asr --manifest " + quoted(text_file()) + " --out " + quoted(file),
                                    "train sft --model " + quoted(kModel) + " --data " + quoted(text_file()) +
                                        " --out " + quoted(file)}) {
        SCOPED_TRACE(args);
        const BoundedRun r = run_bounded(args);
        expect_usage_error(r, "--out");
        EXPECT_THAT(error_line(r.run.err), HasSubstr(file.string() + " is a file, not a folder"));
    }
}

TEST(TrainingFlags, QuantizeTypeAndCompareThresholdAreUsageErrors) {
    const BoundedRun quantize = run_bounded("quantize " + quoted(kModel) + " " + quoted(scratch_dir() / "flags_q.gguf") + " Q9_9");
    expect_usage_error(quantize, "TYPE");
    EXPECT_THAT(error_line(quantize.run.err), HasSubstr("unknown or unsupported type 'Q9_9'"));
    EXPECT_FALSE(fs::exists(scratch_dir() / "flags_q.gguf"));
    const fs::path record = write_file("flags_record.json", "{}");
    const BoundedRun compare = run_bounded("bench compare " + quoted(record) + " " + quoted(record) + " --threshold 5");
    expect_usage_error(compare, "--threshold");
    EXPECT_THAT(error_line(compare.run.err), HasSubstr("neither a percentage (5%) nor a fraction (0.05)"));
}

}  // namespace
}  // namespace forge::test
