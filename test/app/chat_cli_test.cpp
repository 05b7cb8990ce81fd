// The forge binary itself, as a user drives it: the interactive `forge chat` REPL with stdin
// piped (turns, /reset, /exit, end of input), --kv-type, and the bad inputs of the LLM
// commands (one `forge: error:` line, exit status 1).
//
// The model is the committed random-weight qwen3 golden (tiny BPE vocabulary, ChatML
// template); with --temp 0 every answer is the greedy continuation, so a REPL turn must print
// exactly what `forge chat --raw -p` prints for the whole conversation rendered so far.
#include "core/gguf/gguf_file.h"
#include "core/gguf/gguf_writer.h"
#include "test/app/forge_binary.h"

#include <gmock/gmock.h>
#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <regex>

#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace forge {
namespace {

using ::testing::HasSubstr;

const std::string kModel = std::string(FORGE_LLM_TEST_DATA) + "/qwen3-f32.gguf";
constexpr const char* kGreedy = " --temp 0 -n 6 --ctx 256";

using test::ForgeRun;
using test::quoted;

ForgeRun forge(const std::string& args, const std::string& input = "") { return test::run_forge(args, input); }

// The answer `forge chat -p` gives to one user message, without its closing newline.
std::string one_shot_answer(const std::string& user, const std::string& extra = "") {
    const ForgeRun run = forge("chat " + quoted(kModel) + kGreedy + extra + " -p " + quoted(user));
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_FALSE(run.out.empty());
    return run.out.substr(0, run.out.size() - 1);
}

// The greedy continuation of a ChatML conversation rendered by hand, as plain completion.
std::string raw_answer(const std::string& rendered) {
    const ForgeRun run = forge("chat " + quoted(kModel) + kGreedy + " --raw -p " + quoted(rendered));
    EXPECT_EQ(run.status, 0) << run.err;
    return run.out.substr(0, run.out.size() - 1);
}

std::string chatml(const std::string& role, const std::string& content) {
    return "<|im_start|>" + role + "\n" + content + "<|im_end|>\n";
}

TEST(ChatRepl, TurnsCarryTheHistory) {
    const std::string first = one_shot_answer("Hello");
    const std::string second =
        raw_answer(chatml("user", "Hello") + chatml("assistant", first) + chatml("user", "How are you") +
                   "<|im_start|>assistant\n");
    const ForgeRun run = forge("chat " + quoted(kModel) + kGreedy, "Hello\nHow are you\n/exit\n");
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(run.out, first + "\n" + second + "\n");
    // The second answer depends on the first turn: alone, the question gets another answer
    // (else this test could not tell history from no history).
    EXPECT_NE(second, one_shot_answer("How are you"));
}

TEST(ChatRepl, ResetForgetsTheConversation) {
    const std::string first = one_shot_answer("Hello");
    const ForgeRun run = forge("chat " + quoted(kModel) + kGreedy, "Hello\n/reset\nHello\n/exit\n");
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(run.out, first + "\n" + first + "\n");
    EXPECT_THAT(run.err, HasSubstr("(conversation cleared)"));
}

TEST(ChatRepl, EndOfInputEndsTheSession) {
    const std::string first = one_shot_answer("Hello");
    const ForgeRun run = forge("chat " + quoted(kModel) + kGreedy, "Hello\n");  // no /exit: Ctrl-D
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(run.out, first + "\n");
    EXPECT_THAT(run.err, HasSubstr("generation:"));  // the closing speed report
}

// From a pipe, the commands work as on a terminal, and an unknown one ends forge with status 1
// before anything reaches the model (a script's typo must not pass unseen).
TEST(ChatRepl, PipedCommandsAndAnUnknownOne) {
    const std::string first = one_shot_answer("Hello");
    const std::string saved = ::testing::TempDir() + "/" + std::to_string(::getpid()) + "_chat.json";
    const ForgeRun run = forge("chat " + quoted(kModel) + kGreedy, "Hello\n/save " + saved + "\n/bogus\nHello\n");
    EXPECT_EQ(run.status, 1);
    EXPECT_EQ(run.out, first + "\n");
    EXPECT_THAT(run.err, HasSubstr("forge: error: unknown command /bogus (/help lists the commands)"));
    EXPECT_THAT(test::read_file(saved), HasSubstr("\"content\": \"Hello\""));
    std::remove(saved.c_str());
}

// A full context drops the oldest turns with a warning (as llama.cpp shifts its context) and
// the session goes on.
TEST(ChatRepl, AFullContextDropsTheOldestTurns) {
    const std::string input = "Hello there my friend\nHow are you doing today\nWhat now then\n/exit\n";
    const ForgeRun run = forge("chat " + quoted(kModel) + " --temp 0 -n 6 --ctx 48", input);
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_THAT(run.err, HasSubstr("no longer fits --ctx 48: dropped the 2 oldest messages"));
    const std::string lines = run.out;
    EXPECT_EQ(std::count(lines.begin(), lines.end(), '\n'), 3);  // three answers
}

TEST(ChatRepl, KvTypeF32AndF16BothRun) {
    EXPECT_FALSE(one_shot_answer("Hello", " --kv-type f32").empty());
    const ForgeRun bad = forge("chat " + quoted(kModel) + " --kv-type q8 -p hi");
    EXPECT_EQ(bad.status, 2);  // a usage error, found as the command line is parsed
    EXPECT_THAT(bad.err, HasSubstr("forge: error: --kv-type: the KV cache type must be f16, f32 or q8_0, not 'q8'"));
}

// A copy of the model with metadata key `key` set to `value` and tensor `drop` left out.
std::string edited_model(const std::string& name, const std::string& key, const std::string& value,
                         const std::string& drop = "") {
    const gguf::GgufFile source = gguf::GgufFile::open(kModel);
    gguf::GgufWriter writer;
    for (const auto& kv : source.metadata()) writer.set(kv.key, kv.value);
    if (!key.empty()) writer.set(key, value);
    for (const auto& info : source.tensors()) {
        if (info.name != drop) writer.add_tensor(info.name, info.dtype, info.dims, source.tensor_bytes(info));
    }
    const std::string path = ::testing::TempDir() + "/" + std::to_string(::getpid()) + "_" + name;
    writer.write(path);
    return path;
}

// A path for --out in the test's folder that nothing has written yet. (/dev/null is refused as an
// output before any work: forge writes through a temporary file renamed over the target.)
std::string unwritten_output(const std::string& name) {
    const std::string path = ::testing::TempDir() + "/" + std::to_string(::getpid()) + "_" + name;
    std::remove(path.c_str());
    return path;
}

void expect_error(const ForgeRun& run, const std::string& message) {
    EXPECT_EQ(run.status, 1);
    EXPECT_TRUE(run.out.empty()) << run.out;
    EXPECT_THAT(run.err, HasSubstr("forge: error: "));
    EXPECT_THAT(run.err, HasSubstr(message));
}

TEST(LlmCliBadInput, NotAGguf) {
    const std::string path = ::testing::TempDir() + "/" + std::to_string(::getpid()) + "_plain.gguf";
    std::ofstream(path) << "not a model";
    expect_error(forge("chat " + quoted(path) + " -p hi"), "GGUF");
    std::remove(path.c_str());
}

// Every model argument with a bundled default is resolved one way (app/bundled_models.h):
// a path that is not a file is named, for chat and serve as for transcribe and nam.
TEST(LlmCliBadInput, AMissingModelFileIsNamed) {
    const std::string missing = ::testing::TempDir() + "/no-such-model";
    for (const std::string& command : {"chat " + quoted(missing) + " -p hi", "serve " + quoted(missing) + " --port 0",
                                       "transcribe -m " + quoted(missing) + " in.wav", "nam info " + quoted(missing)}) {
        const ForgeRun run = forge(command);
        EXPECT_EQ(run.status, 1) << command << ": " << run.err;
        EXPECT_THAT(run.err, HasSubstr(missing + ": no such model file")) << command;
    }
}

TEST(LlmCliBadInput, UnsupportedArchitecture) {
    const std::string path = edited_model("mamba.gguf", "general.architecture", "mamba");
    expect_error(forge("chat " + quoted(path) + " -p hi"), "unsupported architecture 'mamba'");
    std::remove(path.c_str());
}

TEST(LlmCliBadInput, MissingTensor) {
    const std::string path = edited_model("no_ffn_up.gguf", "", "", "blk.0.ffn_up.weight");
    const std::string out = unwritten_output("no_ffn_up.f32");
    expect_error(forge("logits " + quoted(path) + " --tokens 1,2 --out " + quoted(out)), "tensor blk.0.ffn_up.weight is missing");
    EXPECT_FALSE(std::filesystem::exists(out));  // a failed run leaves no output
    std::remove(path.c_str());
}

TEST(LlmCliBadInput, TokenIdOutOfRange) {
    const std::string out = unwritten_output("token_out_of_range.f32");
    expect_error(forge("logits " + quoted(kModel) + " --tokens 1,511 --out " + quoted(out)),
                 "token id 511 at position 1 is out of range [0, 511)");
    EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(LlmCliBadInput, HostileGrammarsAreErrorsNotCrashes) {
    // --regex is checked as it is parsed: a usage error (exit 2) before the model loads. It
    // was a stack overflow, and a count past the limit was taken as literal text.
    for (const char* pattern : {"(a?){0,99999}", "a{99999999999999999999}", "(?=x)"}) {
        const ForgeRun run = forge("chat " + quoted(kModel) + " -p hi --regex " + quoted(pattern));
        EXPECT_EQ(run.status, 2) << pattern << ": " << run.err;
        EXPECT_THAT(run.err, HasSubstr("forge: error: --regex: regex"));
        EXPECT_THAT(run.err, HasSubstr("Run 'forge chat --help'"));
    }
    // A --json-schema file that refers to itself names the file and the path (exit 1: the file's fault).
    const std::string path = ::testing::TempDir() + "/" + std::to_string(::getpid()) + "_self.schema.json";
    std::ofstream(path) << R"({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"})";
    expect_error(forge("chat " + quoted(kModel) + " -p hi --json-schema " + quoted(path)), "#/$defs/a/$ref");
    std::remove(path.c_str());
}

// A file of `path` under the test's temporary directory, holding `text`.
std::string temp_file(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + "/" + std::to_string(::getpid()) + "_" + name;
    std::ofstream(path) << text;
    return path;
}

TEST(ChatGrammar, GrammarFileConstrainsTheAnswer) {
    const std::string path = temp_file("answer.gbnf", "# yes or no, then 1 to 3 '!'\nroot ::= (\"yes\" | \"no\") \"!\"{1,3}\n");
    const std::string answer = one_shot_answer("Well?", " --grammar-file " + quoted(path));
    EXPECT_TRUE(std::regex_match(answer, std::regex("(yes|no)!{1,3}"))) << answer;
    std::remove(path.c_str());
}

TEST(LlmCliBadInput, BadGrammarFilesNameTheFileLineAndColumn) {
    const std::string path = temp_file("bad.gbnf", "root ::= item\n");
    expect_error(forge("chat " + quoted(kModel) + " -p hi --grammar-file " + quoted(path)),
                 "--grammar-file " + path + ": GBNF grammar, line 1, column 10: rule 'item' is used but never defined");
    const std::string left = temp_file("left.gbnf", "root ::= root \"a\" | \"b\"\n");
    expect_error(forge("chat " + quoted(kModel) + " -p hi --grammar-file " + quoted(left)), "left recursion");
    expect_error(forge("chat " + quoted(kModel) + " -p hi --grammar-file " + quoted(path + ".missing")), "--grammar-file: cannot read");
    expect_error(forge("chat " + quoted(kModel) + " -p hi --grammar-file " + quoted(path) + " --regex a"), "cannot be used together");
    std::remove(path.c_str());
    std::remove(left.c_str());
}

TEST(LlmCliBadInput, PromptLongerThanTheContext) {
    expect_error(forge("chat " + quoted(kModel) + " --temp 0 --ctx 8 -p " + quoted("a much longer prompt than eight tokens")),
                 "the context is full");
}

// `bench llm --text-out F` writes the generated text; with F as the lookup file (guesses
// that are all right, the speculation benchmark of docs/LLM.md) the greedy text is the same.
TEST(BenchLlm, TextOutIsTheGenerationAndReplaysAsTheLookupFile) {
    const std::string plain = unwritten_output("bench_plain.txt"), replayed = unwritten_output("bench_replayed.txt");
    const std::string bench = "--quiet bench llm " + quoted(kModel) + " --prompt 8 --gen 32 --reps 1 --json";
    ASSERT_EQ(forge(bench + " --spec off --text-out " + quoted(plain)).status, 0);
    const ForgeRun run = forge(bench + " --lookup-file " + quoted(plain) + " --text-out " + quoted(replayed));
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_THAT(run.out, HasSubstr("\"generated\": 32"));
    const auto read = [](const std::string& path) {
        std::ifstream in(path);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    EXPECT_FALSE(read(plain).empty());
    EXPECT_EQ(read(replayed), read(plain));
    std::remove(plain.c_str());
    std::remove(replayed.c_str());
    const std::string out = unwritten_output("bench_no_spec.txt");
    expect_error(forge(bench + " --text-out " + quoted(out)), "--text-out needs --spec, --model-draft or --lookup-file");
    EXPECT_FALSE(std::filesystem::exists(out));
}

// `bench llm --parallel 1,2` measures both stream counts in one run, in turn: one object per
// count, in the order given, each with its aggregate decode against the first count's.
TEST(BenchLlm, ParallelListMeasuresEveryCountInOneRun) {
    const std::string bench = "--quiet bench llm " + quoted(kModel) + " --prompt 4 --gen 4 --reps 2 --parallel 1,2";
    const ForgeRun run = forge(bench + " --json");
    ASSERT_EQ(run.status, 0) << run.err;
    const auto result = nlohmann::json::parse(run.out);
    ASSERT_EQ(result["runs"].size(), 2u);
    EXPECT_FALSE(result.contains("decode_tok_s"));  // no one count's figures at the top
    const nlohmann::json &one = result["runs"][0], &two = result["runs"][1];
    EXPECT_EQ(one["parallel"], 1);
    EXPECT_EQ(two["parallel"], 2);
    EXPECT_EQ(one["aggregate_decode_vs_first"], 1.0);
    EXPECT_DOUBLE_EQ(two["aggregate_decode_tok_s"].get<double>(), 2 * two["decode_tok_s"].get<double>());
    EXPECT_DOUBLE_EQ(two["aggregate_decode_vs_first"].get<double>(),
                     two["aggregate_decode_tok_s"].get<double>() / one["aggregate_decode_tok_s"].get<double>());
    const ForgeRun text = forge(bench);
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_THAT(text.out, HasSubstr("  1 stream : prefill pp4"));
    EXPECT_THAT(text.out, HasSubstr("  2 streams: prefill pp4"));
    expect_error(forge(bench + " --spec lookup"), "need --parallel 1");
}

}  // namespace
}  // namespace forge
