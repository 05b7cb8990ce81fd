// Which splitter reads a model's answer, chosen by its chat template (the templates of
// test/data/chat_templates, as the GGUF files carry them), and the answer split by it: gpt-oss's
// harmony channels, Qwen3's <think> with its Hermes tool calls, the rest as it was written.
// The splitters themselves are tested piece by piece in thinking_splitter_test.cpp and
// harmony_parser_test.cpp; here, that each family gets its own and that they compose.
#include "models/llm/answer_splitter.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace forge::llm {
namespace {

std::string chat_template(const std::string& name) {
    std::ifstream in(std::string(FORGE_TEST_DATA_DIR) + "/chat_templates/" + name + ".jinja");
    EXPECT_TRUE(in.good()) << name;
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The answer pushed byte by byte: what a stream sends, put together.
AnswerPiece streamed(AnswerSplitter& splitter, const std::string& text) {
    AnswerPiece all;
    const auto take = [&](AnswerPiece piece) {
        all.reasoning += piece.reasoning;
        all.content += piece.content;
        for (auto& d : piece.tool_calls) all.tool_calls.push_back(std::move(d));
    };
    for (char c : text) take(splitter.push(std::string_view(&c, 1)));
    take(splitter.finish());
    return all;
}

TEST(AnswerFormat, EachFamilyGetsItsSplitter) {
    EXPECT_EQ(answer_format(chat_template("gpt-oss"), true), AnswerFormat::Harmony);
    EXPECT_EQ(answer_format(chat_template("qwen3"), true), AnswerFormat::Thinking);
    EXPECT_EQ(answer_format(chat_template("chatml"), true), AnswerFormat::Plain);
    EXPECT_EQ(answer_format(chat_template("llama3"), true), AnswerFormat::Plain);
}

TEST(AnswerFormat, WithoutSplittingEveryAnswerIsPlain) {  // --reasoning-format none
    EXPECT_EQ(answer_format(chat_template("gpt-oss"), false), AnswerFormat::Plain);
    EXPECT_EQ(answer_format(chat_template("qwen3"), false), AnswerFormat::Plain);
}

TEST(AnswerSplitter, GptOssAnalysisIsReasoningFinalIsContentCommentaryIsACall) {
    AnswerSplitter splitter(answer_format(chat_template("gpt-oss"), true), tool_calls::ToolFormat::Hermes, true, "call_x_");
    const std::string text =
        "<|channel|>analysis<|message|>Need the weather.<|end|>"
        "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\":\"Paris\"}";
    const AnswerPiece all = streamed(splitter, text);
    EXPECT_EQ(all.reasoning, "Need the weather.");
    EXPECT_EQ(all.content, "");
    ASSERT_EQ(splitter.calls().size(), 1u);
    EXPECT_EQ(splitter.calls()[0].name, "get_weather");
    EXPECT_EQ(splitter.calls()[0].arguments, "{\"city\":\"Paris\"}");
    EXPECT_EQ(splitter.calls()[0].id.rfind("call_x_", 0), 0u);
    ASSERT_FALSE(all.tool_calls.empty());
    EXPECT_EQ(all.tool_calls[0].name, "get_weather");

    AnswerSplitter answer(AnswerFormat::Harmony, tool_calls::ToolFormat::Hermes, false, "call_");
    const AnswerPiece whole = answer.whole("<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Hi!");
    EXPECT_EQ(whole.reasoning, "Think.");
    EXPECT_EQ(whole.content, "Hi!");
}

TEST(AnswerSplitter, Qwen3ThinksThenCallsInHermesTags) {
    const std::string text = "<think>\nThe user wants weather.\n</think>\n\n"
                             "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
    AnswerSplitter splitter(answer_format(chat_template("qwen3"), true), tool_calls::ToolFormat::Hermes, true, "call_");
    const AnswerPiece all = streamed(splitter, text);
    EXPECT_EQ(all.reasoning, "The user wants weather.\n");
    EXPECT_EQ(all.content, "");
    ASSERT_EQ(splitter.calls().size(), 1u);
    EXPECT_EQ(splitter.calls()[0].name, "get_weather");

    // Without tools, the text after the thinking is all content.
    AnswerSplitter no_tools(AnswerFormat::Thinking, tool_calls::ToolFormat::Hermes, false, "call_");
    const AnswerPiece plain = no_tools.whole("<think>\nHmm.\n</think>\n\nHello!");
    EXPECT_EQ(plain.reasoning, "Hmm.\n");
    EXPECT_EQ(plain.content, "Hello!");
    EXPECT_TRUE(no_tools.calls().empty());
}

TEST(AnswerSplitter, PlainKeepsTheTextAsWritten) {
    const std::string text = "<think>\nHmm.\n</think>\n\nHello!";
    AnswerSplitter splitter(AnswerFormat::Plain, tool_calls::ToolFormat::Hermes, false, "call_");
    const AnswerPiece all = streamed(splitter, text);
    EXPECT_EQ(all.reasoning, "");
    EXPECT_EQ(all.content, text);
}

}  // namespace
}  // namespace forge::llm
