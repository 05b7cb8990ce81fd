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

}  // namespace
}  // namespace forge::test
