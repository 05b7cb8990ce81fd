// The bundled chat model (models/llm/bundled/forge-chat.gguf) through `forge chat` with no
// model and with "default": the greedy answers equal llama.cpp's on the same file
// (test/data/llm/bundled_chat_golden.json, written by tools/make_bundled_chat_golden.py with
// node-llama-cpp 3.22.1; both with an f32 KV cache). Token choices are discrete: exact.
#include "test/app/forge_binary.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace forge::test {
namespace {

nlohmann::json golden() {
    std::ifstream in(std::string(FORGE_LLM_TEST_DATA) + "/bundled_chat_golden.json");
    return nlohmann::json::parse(in);
}

TEST(BundledChat, GreedyAnswersEqualLlamaCpps) {
    const nlohmann::json g = golden();
    ASSERT_FALSE(g["answers"].empty());
    for (const auto& entry : g["answers"]) {
        const std::string question = entry["question"];
        const std::string flags =
            " -p " + quoted(question) + " --temp 0 --kv-type f32 -n " + std::to_string(g["max_tokens"].get<int>());
        const ForgeRun run = run_forge("--threads 1 chat" + flags);
        ASSERT_EQ(run.status, 0) << run.err;
        EXPECT_EQ(run.out, entry["answer"].get<std::string>() + "\n") << question;
    }
}

TEST(BundledChat, DefaultNamesTheBundledModel) {
    const ForgeRun implicit = run_forge("--threads 1 chat -p 'Hello!' --temp 0 -n 16");
    const ForgeRun named = run_forge("--threads 1 chat default -p 'Hello!' --temp 0 -n 16");
    ASSERT_EQ(implicit.status, 0) << implicit.err;
    ASSERT_EQ(named.status, 0) << named.err;
    EXPECT_EQ(implicit.out, named.out);
    EXPECT_NE(named.err.find("forge-chat.gguf"), std::string::npos) << named.err;
}

// The bundled model trains at 256 positions: chat and serve default to that, not to 4096 (a
// long session ran far past what the model knows), and say so; a larger size asked warns, and
// serve caps it (issue 29).
TEST(BundledChat, TheContextIsTheTrainedLength) {
    const ForgeRun chat = run_forge("--threads 1 chat -p 'Hello!' --temp 0 -n 4");
    ASSERT_EQ(chat.status, 0) << chat.err;
    EXPECT_NE(chat.err.find("context: 256 tokens, the length the model was trained on"), std::string::npos) << chat.err;
    const ForgeRun asked = run_forge("--threads 1 chat -p 'Hello!' --temp 0 -n 4 --ctx 1024");
    ASSERT_EQ(asked.status, 0) << asked.err;
    EXPECT_NE(asked.err.find("--ctx 1024 is past the 256 tokens the model was trained on"), std::string::npos) << asked.err;
    const ForgeRun within = run_forge("--threads 1 chat -p 'Hello!' --temp 0 -n 4 --ctx 128");
    EXPECT_EQ(within.err.find("trained on"), std::string::npos) << within.err;
    // serve runs until stopped: timeout's SIGINT ends it once it has said what it chose.
    const ForgeRun serve = run_forge("serve -c 1024 --port 0 --threads 1", "", "timeout -s INT 20");
    EXPECT_NE(serve.err.find("-c 1024 is past the 256 tokens the model was trained on: capped at 256"), std::string::npos)
        << serve.err;
}

}  // namespace
}  // namespace forge::test
