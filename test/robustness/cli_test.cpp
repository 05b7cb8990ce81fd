// The command line under hostile use: flags with values that would stall the machine or
// mean something other than they say, writers pointed at their own inputs, names from files
// that carry terminal escape sequences, and one error format for all of it.
#include "core/checkpoint/atomic_file.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/gguf/gguf_writer.h"
#include "test/robustness/hostile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

namespace forge::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kModel = std::string(FORGE_LLM_TEST_DATA) + "/qwen3-f32.gguf";

std::string bytes_of(const fs::path& path) { return read_file(path.string()); }

// ---- exit codes and the error format ----

TEST(CliErrors, UsageErrorsExit2WithAHint) {
    expect_usage_error(run_bounded("nam run"), "model is required");
    expect_usage_error(run_bounded("no-such-command"), "no-such-command");
    expect_usage_error(run_bounded("--threads 0 --version"), "--threads");
    const BoundedRun r = run_bounded("logits " + quoted(kModel) + " --tokens 1 --out x --ctx -5");
    expect_usage_error(r, "--ctx");
    EXPECT_THAT(r.run.err, HasSubstr("forge logits --help"));
}

// A misspelt command names the word, the nearest command and the commands there are, at the
// top level and inside a group (before: "The following argument was not expected: chta", and
// "A subcommand is required" for `train gtp`).
TEST(CliErrors, AMisspeltCommandSuggestsTheNearest) {
    BoundedRun r = run_bounded("chta -p hi");
    expect_usage_error(r, "'chta' is not a forge command. Did you mean 'chat'?");
    EXPECT_THAT(r.run.err, HasSubstr("The commands are: bench, chat,"));
    r = run_bounded("--threads 2 train gtp --steps 1");
    expect_usage_error(r, "'gtp' is not a forge train command. Did you mean 'gpt'?");
    EXPECT_THAT(r.run.err, HasSubstr("forge train --help"));
    // Nothing close: CLI11's own message, no guess.
    r = run_bounded("no-such-command");
    expect_usage_error(r, "no-such-command");
    EXPECT_THAT(r.run.err, Not(HasSubstr("Did you mean")));
}

// Global options after the subcommand (issue 30): taken, and checked as before it.
TEST(CliErrors, GlobalOptionsMayFollowTheSubcommand) {
    const BoundedRun r = run_bounded("gguf info " + quoted(kModel) + " --quiet --threads 1");
    EXPECT_EQ(r.run.status, 0) << r.run.err;  // before: "The following argument was not expected: --quiet"
    EXPECT_THAT(r.run.out, HasSubstr("GGUF v3"));
    expect_usage_error(run_bounded("gguf info " + quoted(kModel) + " --threads 0"), "--threads");
}

// `nam-profile` (the one-step spelling of `nam profile`) works but --help lists the command once.
TEST(CliErrors, HelpListsEachCommandOnce) {
    const BoundedRun help = run_bounded("--help");
    EXPECT_EQ(help.run.status, 0);
    EXPECT_THAT(help.run.out, Not(HasSubstr("nam-profile")));
    const BoundedRun spelling = run_bounded("nam-profile --help");
    EXPECT_EQ(spelling.run.status, 0);
    EXPECT_THAT(spelling.run.out, HasSubstr("Capture an amp in one step"));
}

// A name out of a list is a usage error (exit 2) at parse time, as a number out of range is
// (both were exit 1, found only when the command ran).
TEST(CliErrors, NamesOutOfAListAreUsageErrors) {
    expect_usage_error(run_bounded("chat " + quoted(kModel) + " --kv-type f8 -p hi"), "--kv-type: the KV cache type must be");
    expect_usage_error(run_bounded("logits " + quoted(kModel) + " --tokens 1 --out x --kv-type f8"), "--kv-type");
    expect_usage_error(run_bounded("serve " + quoted(kModel) + " --kv-type f8"), "--kv-type");
    expect_usage_error(run_bounded("bench run --suite quik"), "--suite: unknown bench 'quik'");
    expect_usage_error(run_bounded("bench run --suite ops,quik"), "unknown bench 'quik'");
}

// Help shows defaults as "(default X)" and ranges as "in [a, b]" everywhere; CLI11's own
// formatting leaked before: "INT:INT in [-1 - 1099511627776]", "--no-webui{false}",
// "TEXT:{text,json,srt,vtt}", "=gpt-run" after the type, "FINITE in (0 - 1000]".
TEST(CliErrors, HelpShowsNoLibraryFormatting) {
    for (const char* command : {"chat", "serve", "logits", "transcribe", "train gpt", "train asr", "train sft",
                                "bench grammar", "bench run", "nam run", "nam train", "quantize", "tokenize"}) {
        SCOPED_TRACE(command);
        const BoundedRun r = run_bounded(std::string(command) + " --help");
        EXPECT_EQ(r.run.status, 0);
        for (const char* leak : {"{false}", "INT:", "FLOAT:", "TEXT:", "FINITE", "Excludes:", "[-1 - ", "]=", "=gpt-run"})
            EXPECT_THAT(r.run.out, Not(HasSubstr(leak))) << r.run.out;
    }
    const BoundedRun chat = run_bounded("chat --help");
    EXPECT_THAT(chat.run.out, HasSubstr("-n,--n-predict INT >= -1"));
    EXPECT_THAT(chat.run.out, HasSubstr("--top-p FLOAT in [0, 1]"));
    const BoundedRun gpt = run_bounded("train gpt --help");
    EXPECT_THAT(gpt.run.out, HasSubstr("Transformer blocks (width = 64 x depth) (default 4)"));
    EXPECT_THAT(run_bounded("transcribe --help").run.out, HasSubstr("--format text|json|srt|vtt"));
}

TEST(CliErrors, HelpStillSucceeds) {
    const BoundedRun r = run_bounded("nam --help");
    EXPECT_EQ(r.run.status, 0);
    EXPECT_THAT(r.run.out, HasSubstr("run"));
}

TEST(CliErrors, RuntimeErrorsExit1) {
    expect_error(run_bounded("gguf info /no/such/file.gguf"), "/no/such/file.gguf");
}

// A missing or unreadable input is exit 1 naming the flag and the file in every command (README's
// exit codes); CLI11's ExistingFile made it a usage error (exit 2) in tokenize, the trainers,
// bench run and nam info.
TEST(CliErrors, AMissingInputIsExit1NamingIt) {
    const std::string missing = "/no/such/input";
    const std::string tokenizer = std::string(FORGE_LLM_TEST_DATA) + "/qwen3-f32.gguf";
    for (const std::string& args : {
             "tokenize " + missing + " --text hi",
             "tokenize " + quoted(kModel) + " --file " + missing,
             "train gpt --data " + missing + " --tokenizer " + quoted(tokenizer) + " --out " + quoted(scratch_dir() / "g"),
             "train gpt --data " + quoted(kModel) + " --tokenizer " + missing + " --out " + quoted(scratch_dir() / "g"),
             "train sft --model " + quoted(kModel) + " --data " + missing + " --out " + quoted(scratch_dir() / "s"),
             "train tokenizer --data " + missing + " --vocab-size 300 --out " + quoted(scratch_dir() / "t.gguf"),
             "train asr --manifest " + missing + " --out " + quoted(scratch_dir() / "a"),
             "bench run --suite llm --model " + missing,
             "nam info default --loudness-input " + missing,
         }) {
        SCOPED_TRACE(args);
        expect_error(run_bounded(args), "cannot open '" + missing + "': No such file or directory");
    }
    BoundedRun r = run_bounded("train gpt --data " + missing + " --tokenizer " + quoted(tokenizer));
    EXPECT_THAT(error_line(r.run.err), HasSubstr("--data"));
    // A folder where a file is read.
    expect_error(run_bounded("tokenize " + quoted(scratch_dir()) + " --text hi"), "is a folder, not a file");
    // A usage error in the same command line still wins: nothing runs.
    expect_usage_error(run_bounded("train tokenizer --data " + missing + " --vocab-size 100 --out x.gguf"), "--vocab-size");
}

// ---- flags ----

// The global --threads was bounded but bench llm's own was not: 100 000 threads stalled the
// machine.
TEST(CliFlags, EveryThreadCountIsBounded) {
    expect_usage_error(run_bounded("bench llm " + quoted(kModel) + " --threads 100000"), "--threads");
    expect_usage_error(run_bounded("--threads 100000 gguf info " + quoted(kModel)), "--threads");
}

// Every numeric flag has its range, checked as the command line is parsed (exit 2 with the
// hint): these took anything (bench llm's counts were checked when it ran, exit 1; bench
// grammar's --reps 0 ran nothing; NaN passed the floating-point ranges; nam run's --format was
// read when the output was written; an input channel 0 was found when recording).
TEST(CliFlags, EveryNumberIsRangedAtParseTime) {
    const std::string nam = std::string(FORGE_SOURCE_NAM_DIR) + "/forge-sim-amp.nam";
    const std::string wav = (scratch_dir() / "ranged.wav").string();
    for (const auto& [args, flag] : std::vector<std::pair<std::string, std::string>>{
             {"bench llm " + quoted(kModel) + " --prompt 0", "--prompt"},
             {"bench llm " + quoted(kModel) + " --gen -1", "--gen"},
             {"bench llm " + quoted(kModel) + " --parallel 300", "--parallel"},
             {"bench llm " + quoted(kModel) + " --parallel 1,0", "--parallel"},
             {"bench llm " + quoted(kModel) + " --reps 0", "--reps"},
             {"bench grammar " + quoted(kModel) + " --reps 0", "--reps"},
             {"bench transcribe --seconds nan", "--seconds"},
             {"transcribe x.wav --window nan", "--window"},
             {"transcribe x.wav --overlap inf", "--overlap"},
             {"nam run " + quoted(nam) + " x.wav " + quoted(wav) + " --input-gain inf", "--input-gain"},
             {"nam run " + quoted(nam) + " x.wav " + quoted(wav) + " --slim nan", "--slim"},
             {"nam run " + quoted(nam) + " x.wav " + quoted(wav) + " --format pcm8", "--format"},
             {"nam bench " + quoted(nam) + " --seconds nan", "--seconds"},
             {"train spirals --steps 0", "--steps"},
             {"train spirals --steps 99999999999", "--steps"},
             {"train tokenizer --data x.txt --out x.gguf --vocab-size 100", "--vocab-size"},
             {"nam profile --simulate --out x.nam --input-channel 0", "--input-channel"},
             {"nam profile --simulate --out x.nam --device -1", "--device"},
         }) {
        SCOPED_TRACE(args);
        expect_usage_error(run_bounded(args), flag);
    }
}

// nam run's container follows the output's extension: OUT.mp3 was a WAV under that name. Now a
// usage error naming the file, in the three-argument and the two-argument (default model) form.
TEST(CliFlags, NamRunWritesOnlyWavOrFlacNames) {
    const fs::path wav = scratch_dir() / "nam_in.wav";
    std::ofstream(wav) << "any bytes: refused before reading";
    for (const char* out : {"out.mp3", "out", "out.wav.txt"}) {
        const fs::path path = scratch_dir() / out;
        for (const std::string& args : {"nam run default " + quoted(wav) + " " + quoted(path), "nam run " + quoted(wav) + " " + quoted(path)}) {
            SCOPED_TRACE(args);
            const BoundedRun r = run_bounded(args);
            expect_usage_error(r, path.string() + ": forge writes .wav or .flac files");
            EXPECT_FALSE(fs::exists(path));
        }
    }
}

TEST(CliFlags, NonFiniteSamplingParametersAreRejected) {
    for (const char* flag : {"--temp inf", "--temp nan", "--temp -1", "--top-p nan", "--min-p inf", "--repeat-penalty 0"})
        expect_usage_error(run_bounded("chat " + quoted(kModel) + " -p hi " + flag), std::string(flag).substr(0, 6));
}

TEST(CliFlags, NegativeContextIsRejected) {
    expect_usage_error(run_bounded("chat " + quoted(kModel) + " -p hi --ctx -5"), "--ctx");
    expect_usage_error(run_bounded("chat " + quoted(kModel) + " -p hi --ctx 0"), "--ctx");
    expect_usage_error(run_bounded("chat " + quoted(kModel) + " -p hi --ctx 99999999999"), "--ctx");
}

// llama.cpp: -n -1 generates until the context is full or the model ends its turn. It used
// to generate nothing.
TEST(CliFlags, MinusOnePredictsWithoutALimit) {
    const BoundedRun r = run_bounded("chat " + quoted(kModel) + " --raw --temp 0 --ctx 24 -n -1 -p hello");
    EXPECT_EQ(r.run.status, 0) << r.run.err;
    EXPECT_FALSE(r.run.out.empty());
    expect_usage_error(run_bounded("chat " + quoted(kModel) + " -p hi -n -2"), "-n");
}

// Raw library text: an -n far past the context once reached std::vector::reserve ("forge:
// error: vector::reserve"), an empty --raw prompt the session's "eval: no tokens".
TEST(CliFlags, LimitsPastTheContextAndEmptyPromptsAreSentences) {
    const BoundedRun huge = run_bounded("chat " + quoted(kModel) + " --raw --temp 0 --ctx 16 -n 1099511627776 -p hello");
    EXPECT_EQ(huge.run.status, 0) << huge.run.err;
    EXPECT_THAT(huge.run.err, HasSubstr("the context is full"));
    expect_error(run_bounded("chat " + quoted(kModel) + " --raw -p ''"), "the prompt is empty: nothing to answer");
}

// ---- bench run on a busy machine ----

// Work started a moment ago shows in the load average only later: bench run also measures how
// busy the CPUs are right now and says so before it starts (it said nothing then).
TEST(BenchRun, WarnsWhenOtherProcessesKeepTheCpusBusy) {
    // One busy loop per core, until the test ends them (not a fixed time: on a loaded CI machine
    // the two runs may take longer than any fixed time, and the second would then see idle CPUs).
    // `timeout` only bounds them should the test die first.
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const std::string pid = std::to_string(::getpid());
    const std::string marker = "forge-busy-test-" + pid;
    for (unsigned i = 0; i < cores; ++i)
        ASSERT_EQ(std::system(("timeout 300 sh -c 'while :; do :; done' " + marker + " &").c_str()), 0);
    struct EndLoops {  // "tes[t]": the pattern does not match the shell that runs pkill
        std::string pid;
        ~EndLoops() { (void)std::system(("pkill -f 'forge-busy-tes[t]-" + pid + "'").c_str()); }
    } end_loops{pid};
    const BoundedRun r = run_bounded("bench run --suite machine --reps 1 --out " + quoted(scratch_dir() / "busy.json"));
    EXPECT_EQ(r.run.status, 0) << r.run.err;
    EXPECT_THAT(r.run.err, HasSubstr("bench run: other processes keep the CPUs"));
    // --quiet: the warning stays, the progress lines go.
    const BoundedRun quiet = run_bounded("--quiet bench run --suite machine --reps 1 --out " + quoted(scratch_dir() / "busy.json"));
    EXPECT_EQ(quiet.run.status, 0) << quiet.run.err;
    EXPECT_THAT(quiet.run.err, HasSubstr("other processes keep the CPUs"));
    EXPECT_THAT(quiet.run.err, Not(HasSubstr("[1/1] machine")));
}

// ---- data loss: a writer pointed at one of its inputs ----

class CliDataLoss : public ::testing::Test {
protected:
    void SetUp() override {
        model_ = scratch_dir() / "model.gguf";
        fs::copy_file(kModel, model_, fs::copy_options::overwrite_existing);
        before_ = bytes_of(model_);
    }
    void TearDown() override {
        EXPECT_EQ(bytes_of(model_), before_) << "the input changed";
        EXPECT_FALSE(fs::exists(model_.string() + ".tmp"));
    }
    fs::path model_;
    std::string before_;
};

TEST_F(CliDataLoss, LogitsRefusesToOverwriteItsModel) {
    expect_error(run_bounded("logits " + quoted(model_) + " --tokens 1,2 --out " + quoted(model_)), "is the input file");
}

TEST_F(CliDataLoss, ThroughASymlinkToo) {
    const fs::path link = scratch_dir() / "link.gguf";
    fs::remove(link);
    fs::create_symlink(model_, link);
    expect_error(run_bounded("logits " + quoted(model_) + " --tokens 1,2 --out " + quoted(link)), "is the input file");
    expect_error(run_bounded("quantize " + quoted(link) + " " + quoted(model_) + " Q8_0"), "is the input file");
}

TEST_F(CliDataLoss, ThroughAHardLinkToo) {
    const fs::path link = scratch_dir() / "hard.gguf";
    fs::remove(link);
    fs::create_hard_link(model_, link);
    expect_error(run_bounded("quantize " + quoted(model_) + " " + quoted(link) + " Q8_0"), "is the input file");
}

TEST_F(CliDataLoss, NamRunRefusesToOverwriteItsInputs) {
    const fs::path wav = scratch_dir() / "in.wav";
    fs::copy_file(model_, wav, fs::copy_options::overwrite_existing);  // any bytes: refused before reading
    const std::string wav_before = bytes_of(wav);
    expect_error(run_bounded("nam run default " + quoted(wav) + " " + quoted(wav)), "is the input file");
    EXPECT_EQ(bytes_of(wav), wav_before);
}

TEST_F(CliDataLoss, TrainingWritersRefuseTheirInputs) {
    // train tokenizer --out over one of its --data files.
    const fs::path text = scratch_dir() / "corpus.txt";
    std::ofstream(text) << "some text to train on\n";
    const std::string text_before = bytes_of(text);
    expect_error(run_bounded("train tokenizer --data " + quoted(text) + " --vocab-size 300 --out " + quoted(text)),
                 "is the input file");
    EXPECT_EQ(bytes_of(text), text_before);
    // train sft --model RUN --out RUN: the base model, its checkpoint and log would be replaced.
    const fs::path run = scratch_dir() / "run";
    fs::create_directories(run);
    fs::copy_file(model_, run / "model.gguf", fs::copy_options::overwrite_existing);
    const fs::path data = scratch_dir() / "chat.jsonl";
    std::ofstream(data) << R"({"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello."}]})" << "\n";
    expect_error(run_bounded("train sft --model " + quoted(run) + " --data " + quoted(data) + " --out " + quoted(run)),
                 "it is the folder of the base model");
    expect_error(run_bounded("train sft --model " + quoted(run / "model.gguf") + " --data " + quoted(data) + " --out " +
                             quoted(run)),
                 "it is the folder of the base model");
    EXPECT_EQ(bytes_of(run / "model.gguf"), before_);
}

TEST_F(CliDataLoss, AFailedWriteLeavesNoTemporaryFile) {
    // The output's folder does not exist: the temporary file cannot even be created.
    const fs::path out = scratch_dir() / "no-such-dir" / "out.f32";
    expect_error(run_bounded("logits " + quoted(model_) + " --tokens 1,2 --out " + quoted(out)),
                 "no-such-dir/out.f32.tmp: No such file or directory");
}

// The rename fails (the target became a non-empty folder meanwhile): the error gives the
// rename's own reason, not "Success" (errno used to be overwritten by the clean-up), and
// the temporary file is gone.
TEST(AtomicWrite, FailedRenameKeepsItsReasonAndCleansUp) {
    const fs::path target = scratch_dir() / "becomes-a-folder";
    fs::remove_all(target);
    std::string message;
    {
        checkpoint::TemporaryFile temporary(target);
        std::ofstream(temporary.path()) << "new contents";
        fs::create_directories(target / "child");
        try {
            temporary.commit();
        } catch (const Error& e) {
            message = e.what();
        }
        EXPECT_TRUE(fs::exists(temporary.path()));
    }
    EXPECT_THAT(message, HasSubstr("Is a directory"));
    EXPECT_THAT(message, Not(HasSubstr("Success")));
    EXPECT_FALSE(fs::exists(target.string() + ".tmp"));
    fs::remove_all(target);
}

TEST_F(CliDataLoss, DevicesAreNotReplacedByFiles) {
    expect_error(run_bounded("logits " + quoted(model_) + " --tokens 1,2 --out /dev/null"), "not a regular file");
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

// ---- names from files reach the terminal escaped ----

TEST(CliEscapes, TensorAndKeyNamesCannotSendEscapeSequences) {
    gguf::GgufWriter writer;
    writer.set("evil\x1b]0;pwned\x07key", gguf::Value(std::string("\x1b[2Jvalue")));
    const float data[2] = {1, 2};
    writer.add_tensor("t\x1b[31m", DType::F32, {2}, std::as_bytes(std::span(data)));
    const fs::path path = scratch_dir() / "escape.gguf";
    writer.write(path.string());
    const BoundedRun r = run_bounded("gguf info " + quoted(path));
    EXPECT_EQ(r.run.status, 0) << r.run.err;
    EXPECT_EQ(r.run.out.find('\x1b'), std::string::npos) << r.run.out;
    EXPECT_THAT(r.run.out, HasSubstr("t\\x1b[31m"));
}

// Every path that prints text from a file: log lines (a tensor name in quantize's progress),
// file names (a downloaded archive can name a file anything) in chat's, gguf's and nam's output.
TEST(CliEscapes, LogLinesAndFileNamesCannotSendEscapeSequences) {
    gguf::GgufWriter writer;
    const float data[2] = {1, 2};
    writer.add_tensor("t\x1b[31m", DType::F32, {2}, std::as_bytes(std::span(data)));
    const fs::path evil = scratch_dir() / "escape_tensor.gguf";
    writer.write(evil.string());
    const BoundedRun quantize = run_bounded("quantize " + quoted(evil) + " " + quoted(scratch_dir() / "q.gguf") + " Q8_0");
    EXPECT_EQ(quantize.run.status, 0) << quantize.run.err;
    EXPECT_THAT(quantize.run.err, HasSubstr("t\\x1b[31m"));

    const fs::path model = scratch_dir() / "model\x1b]0;title\x07.gguf";
    fs::copy_file(kModel, model, fs::copy_options::overwrite_existing);
    const fs::path nam = scratch_dir() / "amp\x1b[2J.nam";
    fs::copy_file(fs::path(FORGE_SOURCE_NAM_DIR) / "forge-sim-amp.nam", nam, fs::copy_options::overwrite_existing);
    for (const std::string& args : {"chat " + quoted(model) + " -p hi -n 2 --temp 0", "gguf info " + quoted(model),
                                    "nam info " + quoted(nam), "nam bench " + quoted(nam) + " --seconds 0.1"}) {
        const BoundedRun r = run_bounded(args);
        EXPECT_EQ(r.run.status, 0) << args << ": " << r.run.err;
        EXPECT_EQ(r.run.err.find('\x1b'), std::string::npos) << args << ": " << r.run.err;
        EXPECT_EQ(r.run.out.find('\x1b'), std::string::npos) << args << ": " << r.run.out;
        EXPECT_THAT(r.run.out + r.run.err, HasSubstr("\\x1b")) << args;  // the name is there, escaped
    }
    fs::remove(model);
    fs::remove(nam);
}

// ---- GGUF files whose tensors share bytes ----

template <typename T>
void put(std::string& out, T value) {
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// Two f32 tensors of 4 elements at data offsets `a` and `b`.
std::string two_tensors(std::uint64_t a, std::uint64_t b) {
    std::string out = "GGUF";
    put<std::uint32_t>(out, 3);
    put<std::uint64_t>(out, 2);  // tensors
    put<std::uint64_t>(out, 0);  // metadata entries
    for (const auto& [name, offset] : {std::pair{"a", a}, std::pair{"b", b}}) {
        put<std::uint64_t>(out, 1);
        out += name;
        put<std::uint32_t>(out, 1);   // dims
        put<std::uint64_t>(out, 4);   // 4 elements
        put<std::uint32_t>(out, 0);   // f32
        put<std::uint64_t>(out, offset);
    }
    out.resize((out.size() + 31) / 32 * 32, '\0');
    out.append(64, '\1');
    return out;
}

TEST(GgufHostile, OverlappingTensorsAreRejected) {
    const fs::path ok = write_file("apart.gguf", two_tensors(0, 32));
    EXPECT_EQ(run_bounded("gguf info " + quoted(ok)).run.status, 0);
    const fs::path bad = write_file("overlap.gguf", two_tensors(0, 0));
    expect_error(run_bounded("gguf info " + quoted(bad)), "overlap tensor 'a'");
    EXPECT_THAT(run_bounded("gguf info " + quoted(bad)).run.err, HasSubstr("overlap.gguf"));
}

}  // namespace
}  // namespace forge::test
