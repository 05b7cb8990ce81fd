// tool_choice: "required" and a named function force a call in the model's format whose
// arguments follow the function's schema (random logits on the real Qwen3 vocabulary, parsed
// back by the ToolCallParser); "auto"/"none" constrain nothing; bad tools and choices are
// SchemaErrors naming the request field.
#include "models/llm/grammar/json_schema.h"
#include "models/llm/grammar/matcher.h"
#include "models/llm/tool_calls/tool_call_parser.h"
#include "models/llm/tool_calls/tool_choice.h"
#include "test/models/llm/grammar_testing.h"

#include <gtest/gtest.h>

namespace forge::llm::tool_calls {
namespace {

using json = nlohmann::ordered_json;

const json kTools = json::parse(R"([
  {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
     "properties": {"city": {"type": "string", "maxLength": 20}, "unit": {"enum": ["c", "f"]}}, "required": ["city", "unit"]}}},
  {"type": "function", "function": {"name": "add", "parameters": {"type": "object",
     "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}}}])");

using grammar::matches;

TEST(ToolChoice, ParsesTheFourChoices) {
    EXPECT_EQ(parse_tool_choice(nullptr, kTools).mode, ToolChoiceMode::Auto);
    EXPECT_EQ(parse_tool_choice(nullptr, nullptr).mode, ToolChoiceMode::None);
    EXPECT_EQ(parse_tool_choice("none", kTools).mode, ToolChoiceMode::None);
    EXPECT_EQ(parse_tool_choice("required", kTools).mode, ToolChoiceMode::Required);
    const auto named = parse_tool_choice(json::parse(R"({"type": "function", "function": {"name": "add"}})"), kTools);
    EXPECT_EQ(named.mode, ToolChoiceMode::Function);
    EXPECT_EQ(named.function, "add");
    EXPECT_EQ(tool_call_grammar(ToolFormat::Hermes, kTools, parse_tool_choice("auto", kTools), true), nullptr);
}

TEST(ToolChoice, BadChoicesAndToolsNameTheField) {
    auto path_of = [](const json& choice, const json& tools) {
        try {
            tool_call_grammar(ToolFormat::Hermes, tools, parse_tool_choice(choice, tools), false);
        } catch (const grammar::SchemaError& e) {
            return e.path();
        }
        return std::string("no error");
    };
    EXPECT_EQ(path_of("sometimes", kTools), "tool_choice");
    EXPECT_EQ(path_of(json::parse(R"({"type": "function", "function": {"name": "nope"}})"), kTools), "tool_choice.function.name");
    EXPECT_EQ(path_of("required", json::array()), "tool_choice");
    EXPECT_EQ(path_of("required", json::parse(R"([{"type": "function", "function": {}}])")), "tools[0].function.name");
    EXPECT_EQ(path_of("required", json::parse(R"([{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"x": {"not": {}}}}}}])")),
              "tools[0].function.parameters/properties/x/not");
}

TEST(ToolChoice, GrammarIsTheModelsCallFormat) {
    const auto required = tool_call_grammar(ToolFormat::Hermes, kTools, parse_tool_choice("required", kTools), false);
    EXPECT_TRUE(matches(required, "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 1, \"b\": -2}}\n</tool_call>"));
    EXPECT_TRUE(matches(required, "<tool_call>{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\",\"unit\":\"c\"}}</tool_call>"));
    EXPECT_FALSE(matches(required, "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 1}}\n</tool_call>"));
    EXPECT_FALSE(matches(required, "Sure! <tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 1, \"b\": 2}}\n</tool_call>"));
    const auto named = tool_call_grammar(ToolFormat::Llama3Json, kTools,
                                         parse_tool_choice(json::parse(R"({"type": "function", "function": {"name": "add"}})"), kTools), false);
    EXPECT_TRUE(matches(named, "{\"name\": \"add\", \"parameters\": {\"a\": 1, \"b\": 2}}"));
    EXPECT_FALSE(matches(named, "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"x\", \"unit\": \"c\"}}"));
}

TEST(ToolChoice, RequiredAlwaysProducesAValidCall) {
    const auto g = tool_call_grammar(ToolFormat::Hermes, kTools, parse_tool_choice("required", kTools), false);
    for (unsigned seed = 1; seed <= 6; ++seed) {
        bool ended = false;
        const std::string text = grammar::random_constrained(g, seed, 600, ended);
        ASSERT_TRUE(ended) << text;
        ToolCallParser parser(ToolFormat::Hermes);
        std::string content = parser.push(text).content;
        content += parser.finish().content;
        EXPECT_EQ(content.find_first_not_of(" \n\t"), std::string::npos) << "content leaked: " << content;
        ASSERT_EQ(parser.calls().size(), 1u) << text;
        for (const ChatToolCall& call : parser.calls()) {
            const json arguments = json::parse(call.arguments);
            if (call.name == "add") {
                EXPECT_TRUE(arguments["a"].is_number_integer() && arguments["b"].is_number_integer()) << text;
            } else {
                EXPECT_EQ(call.name, "get_weather");
                EXPECT_TRUE(arguments["unit"] == "c" || arguments["unit"] == "f") << text;
            }
        }
    }
}

}  // namespace
}  // namespace forge::llm::tool_calls
