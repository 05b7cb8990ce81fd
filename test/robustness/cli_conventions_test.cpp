// The command line's conventions, checked over every subcommand from one table (issue 30):
// --help exits 0; an unknown flag is a usage error (exit 2); a missing input file is an error
// while running (exit 1) that names the file; a value out of range or not in a list is a usage
// error (exit 2) that names the flag; the global options are taken before and after the
// subcommand; --quiet leaves no "loaded" or speed lines on stderr. A subcommand missing from
// the table fails the test, so a new one gets its row.
#include "test/robustness/hostile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace forge::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kModel = quoted(std::string(FORGE_LLM_TEST_DATA) + "/qwen3-f32.gguf");
const std::string kAsrModel = quoted(std::string(FORGE_TEST_DATA_DIR) + "/asr/ctc.gguf");
const std::string kClip = quoted(std::string(FORGE_TEST_DATA_DIR) + "/asr/chirps.wav");
const std::string kNam = quoted(std::string(FORGE_SOURCE_NAM_DIR) + "/forge-sim-amp.nam");
const std::string kMissing = "/no/such/input.file";
const std::string kLoraBase = quoted(std::string(FORGE_LLM_TEST_DATA) + "/llama-f32.gguf");
const std::string kAdapter = quoted(std::string(FORGE_LLM_TEST_DATA) + "/lora/llama-f32.lora-a.gguf");

std::string scratch(const std::string& name) { return quoted(scratch_dir() / ("conventions_" + name)); }

struct Command {
    std::string name;                     // "nam run"
    std::optional<std::string> missing;   // arguments that name kMissing as an input
    std::optional<std::string> bad;       // arguments with a value out of range or not in a list
    std::string bad_flag;                 // the flag (or positional) the usage error names
    std::optional<std::string> quick;     // arguments of a successful run of a few seconds
};

const std::vector<Command>& commands() {
    static const std::vector<Command> table = {
        {"bench grammar", kMissing, kModel + " --reps 0", "--reps", {}},
        {"bench llm", kMissing, kModel + " --prompt 0", "--prompt", {}},
        {"bench ops", {}, "--reps 0", "--reps", {}},
        {"bench quant", "--ggml-json " + kMissing, "--reps 0", "--reps", {}},
        {"bench run", "--suite llm --model " + kMissing, "--reps 0", "--reps", {}},
        {"bench compare", kMissing + " " + kMissing, kMissing + " " + kMissing + " --threshold 5", "--threshold", {}},
        {"bench train", {}, "--reps 0", "--reps", {}},
        {"bench transcribe", kMissing, "--seconds 0", "--seconds", {}},
        {"chat", kMissing + " -p hi", kModel + " -p hi --ctx 0", "--ctx", kModel + " -p hi -n 2 --temp 0"},
        {"embed", kMissing + " --text hi", kModel + " --text hi --ctx 0", "--ctx", kModel + " --text hi --pooling mean"},
        {"gguf info", kMissing, {}, "", kModel},
        {"logits", kMissing + " --tokens 1 --out " + scratch("l.f32"), kModel + " --tokens 1 --out x --ctx 0", "--ctx",
         kModel + " --tokens 1,2 --out " + scratch("l.f32")},
        {"lora merge", kMissing + " " + kAdapter + " " + scratch("m.gguf"),
         kLoraBase + " " + kAdapter + " " + scratch("m.gguf") + " --quantize Q9_9", "--quantize",
         kLoraBase + " " + kAdapter + " " + scratch("m.gguf")},
        {"nam run", kMissing + " " + kClip + " " + scratch("o.wav"), kNam + " " + kClip + " " + scratch("o.wav") + " --slim 2",
         "--slim", kNam + " " + kClip + " " + scratch("o.wav")},
        {"nam info", kMissing, {}, "", kNam},
        {"nam bench", kMissing, kNam + " --block 0", "--block", {}},
        {"nam train", "--input " + kMissing + " --output " + kMissing + " --out " + scratch("t.nam"),
         "--input x.wav --output x.wav --out x.nam --epochs 0", "--epochs", {}},
        {"nam capture-signal", {}, {}, "", "--short " + scratch("signal.wav")},
        {"nam profile", {}, "--simulate --out x.nam --epochs 0", "--epochs", {}},
        {"nam devices", {}, {}, "", {}},
        {"nam live", kMissing + " --seconds 1", kNam + " --block 0", "--block", {}},
        {"quantize", kMissing + " " + scratch("q.gguf") + " Q8_0", kModel + " x.gguf Q9_9", "TYPE", {}},
        {"serve", kMissing, kModel + " --port 70000", "--port", {}},
        {"tokenize", kMissing + " --text hi", {}, "", kModel + " --text hi"},
        {"train spirals", {}, "--steps 0", "--steps", {}},
        {"train gpt", "--data " + kMissing + " --tokenizer " + kModel, "--data x --tokenizer x --depth 0", "--depth", {}},
        {"train gpt", {}, "--data x --tokenizer x --precision f16", "--precision", {}},
        {"bench train", {}, "--precision fp8", "--precision", {}},
        {"train sft", "--model " + kModel + " --data " + kMissing, "--model x --data x --epochs 0", "--epochs", {}},
        {"train lora", "--model " + kMissing + " --text " + kMissing, "--model x --text x --rank 0", "--rank", {}},
        {"train tokenizer", "--data " + kMissing + " --vocab-size 300 --out " + scratch("tok.gguf"),
         "--data x --out x --vocab-size 100", "--vocab-size", {}},
        {"train asr", "--manifest " + kMissing, "--manifest x --mels 0", "--mels", {}},
        {"transcribe", kMissing + " --model " + kAsrModel, "x.wav --window 0", "--window", kClip + " --model " + kAsrModel},
    };
    return table;
}

// The subcommands `forge GROUP --help` lists.
std::vector<std::string> listed_subcommands(const std::string& group) {
    const ForgeRun help = run_forge(group + " --help");
    EXPECT_EQ(help.status, 0) << group;
    std::vector<std::string> names;
    std::istringstream lines(help.out.substr(std::min(help.out.find("Subcommands:"), help.out.size())));
    std::string line;
    std::getline(lines, line);  // "Subcommands:"
    while (std::getline(lines, line)) {
        std::istringstream words(line);
        std::string name;
        if (line.rfind("  ", 0) == 0 && words >> name) names.push_back(group.empty() ? name : group + " " + name);
    }
    return names;
}

TEST(CliConventions, EverySubcommandHasARow) {
    std::set<std::string> in_table;
    for (const Command& c : commands()) in_table.insert(c.name);
    const std::set<std::string> groups = {"bench", "gguf", "lora", "nam", "train"};
    for (const std::string& top : listed_subcommands("")) {
        if (!groups.contains(top)) {
            EXPECT_TRUE(in_table.contains(top)) << top << " has no row in the table";
            continue;
        }
        for (const std::string& leaf : listed_subcommands(top))
            EXPECT_TRUE(in_table.contains(leaf)) << leaf << " has no row in the table";
    }
}

TEST(CliConventions, HelpExits0AndUnknownFlagsExit2) {
    for (const Command& c : commands()) {
        SCOPED_TRACE(c.name);
        const BoundedRun help = run_bounded(c.name + " --help");
        EXPECT_EQ(help.run.status, 0) << help.run.err;
        EXPECT_THAT(help.run.out, HasSubstr("Usage:"));
        // After complete arguments, so that the unknown flag is the one error.
        const std::string args = c.missing ? *c.missing : c.quick ? *c.quick : "";
        const BoundedRun unknown = run_bounded(c.name + " " + args + " --no-such-flag");
        if (args.empty()) {
            EXPECT_EQ(unknown.run.status, 2) << unknown.run.err;
        } else {
            expect_usage_error(unknown, "--no-such-flag");
        }
    }
}

// Also the global options' place: before the subcommand and after its arguments, the run gets
// as far as the missing file.
TEST(CliConventions, AMissingInputIsExit1NamingIt) {
    for (const Command& c : commands()) {
        if (!c.missing) continue;
        for (const std::string& args : {c.name + " " + *c.missing, "--quiet --threads 1 " + c.name + " " + *c.missing,
                                        c.name + " " + *c.missing + " --quiet --threads 1"}) {
            SCOPED_TRACE(args);
            expect_error(run_bounded(args), kMissing);
        }
    }
}

TEST(CliConventions, AValueOutOfRangeIsAUsageError) {
    for (const Command& c : commands()) {
        if (!c.bad) continue;
        for (const std::string& args : {c.name + " " + *c.bad, "--threads 1 -v " + c.name + " " + *c.bad,
                                        c.name + " " + *c.bad + " --threads 1 -v"}) {
            SCOPED_TRACE(args);
            const BoundedRun r = run_bounded(args);
            expect_usage_error(r, c.bad_flag);
            EXPECT_THAT(r.run.err, HasSubstr("forge " + c.name + " --help"));
        }
    }
}

// --quiet: the answer, warnings and errors; no "loaded ..." line, no speed, no [info] logs.
TEST(CliConventions, QuietLeavesNoLoadedOrSpeedLines) {
    for (const Command& c : commands()) {
        if (!c.quick) continue;
        for (const std::string& args : {"--quiet " + c.name + " " + *c.quick, c.name + " " + *c.quick + " --quiet"}) {
            SCOPED_TRACE(args);
            const BoundedRun r = run_bounded(args);
            EXPECT_EQ(r.run.status, 0) << r.run.err;
            for (const char* noise : {"loaded", "[info]", "tok/s", "real time", "real-time"})
                EXPECT_THAT(r.run.err, Not(HasSubstr(noise)));
        }
    }
}

}  // namespace
}  // namespace forge::test
