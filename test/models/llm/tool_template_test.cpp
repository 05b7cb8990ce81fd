// Tools through real chat templates, against jinja2 configured as transformers renders
// (tools/grammar/tool_template_oracle.py -> test/data/grammar/tool_templates.json): Qwen3's and
// gpt-oss's (harmony: tools as a TypeScript namespace in the developer message, calls on the
// commentary channel, results from functions.NAME, reasoning on the analysis channel)
// templates with tools, assistant tool_calls and tool results must give the same text; ChatML,
// which knows no tools, must too through render_chat, and render_with_tools spells them out.
#include "models/llm/chat_template/chat_template.h"
#include "models/llm/tool_calls/tool_format.h"
#include "models/llm/tool_calls/tool_prompt.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

namespace forge::llm::tool_calls {
namespace {

using json = nlohmann::ordered_json;

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string template_text(const std::string& name) { return read_text(std::string(FORGE_TEST_DATA_DIR) + "/chat_templates/" + name + ".jinja"); }

// gpt-oss's template prints today's date (strftime_now): compared as "a date", the golden was
// rendered on another day.
std::string any_date(const std::string& text) {
    static const std::regex date("Current date: [0-9]{4}-[0-9]{2}-[0-9]{2}\n");
    return std::regex_replace(text, date, "Current date: YYYY-MM-DD\n");
}

std::vector<ChatMessage> messages_of(const json& list) {
    std::vector<ChatMessage> messages;
    for (const json& m : list) {
        ChatMessage message{m["role"], m["content"], m.value("reasoning_content", ""), {}, m.value("tool_call_id", ""), m.value("name", "")};
        for (const json& c : m.value("tool_calls", json::array())) message.tool_calls.push_back({c["id"], c["name"], c["arguments"]});
        messages.push_back(std::move(message));
    }
    return messages;
}

TEST(ToolTemplates, RenderLikeJinja2) {
    const json goldens = json::parse(read_text(std::string(FORGE_TEST_DATA_DIR) + "/grammar/tool_templates.json"));
    int checked = 0;
    for (const json& g : goldens) {
        ChatOptions options;
        options.add_generation_prompt = g["add_generation_prompt"];
        options.tools = g["tools"];
        const auto messages = messages_of(g["messages"]);
        const std::string label = g["template"].get<std::string>() + "/" + g["conversation"].get<std::string>();
        const std::string expected = g["expected"].get<std::string>();
        const std::string rendered = render_chat(template_text(g["template"]), messages, options);
        EXPECT_EQ(any_date(rendered), any_date(expected)) << label;
        if (g["template"] == "gpt-oss") {
            EXPECT_NE(any_date(expected), expected) << label;  // the date was there
        }
        ++checked;
    }
    EXPECT_EQ(checked, 24);
}

TEST(ToolTemplates, FormatFromTheTemplate) {
    EXPECT_EQ(detect_tool_format(template_text("qwen3")), ToolFormat::Hermes);
    EXPECT_TRUE(template_renders_tools(template_text("qwen3")));
    EXPECT_FALSE(template_renders_tools(template_text("chatml")));
    EXPECT_FALSE(template_renders_tools(template_text("llama3")));  // Llama 3.0's template has no tools
}

TEST(ToolTemplates, TemplatesWithoutToolsGetThemInTheSystemMessage) {
    const json goldens = json::parse(read_text(std::string(FORGE_TEST_DATA_DIR) + "/grammar/tool_templates.json"));
    const json& g = goldens[2];  // qwen3/call_and_results
    ChatOptions options;
    options.tools = g["tools"];
    const std::string text = render_with_tools(template_text("chatml"), messages_of(g["messages"]), options);
    EXPECT_NE(text.find("<|im_start|>system\nYou are a helpful assistant.\n\n# Tools"), std::string::npos) << text;
    EXPECT_NE(text.find("\"name\": \"get_weather\""), std::string::npos);
    EXPECT_NE(text.find("<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"zone\": \"Asia/Tokyo\"}}\n</tool_call>"), std::string::npos) << text;
    EXPECT_NE(text.find("<|im_start|>user\n<tool_response>\n09:30\n</tool_response><|im_end|>"), std::string::npos) << text;
    // A template that renders tools itself is used as it is.
    EXPECT_EQ(render_with_tools(template_text("qwen3"), messages_of(g["messages"]), options), g["expected"].get<std::string>());
}

// Templates that cannot be committed (Llama 3.1/3.2: Meta's license) when
// FORGE_EXTRA_TOOL_TEMPLATES names a folder with NAME.jinja files and expected.json made from
// them by tools/grammar/tool_template_oracle.py: same renders, same errors, and the Llama 3.x
// JSON call format detected.
TEST(ToolTemplates, ExtraTemplatesWhenAvailable) {
    const char* dir = std::getenv("FORGE_EXTRA_TOOL_TEMPLATES");
    if (!dir) GTEST_SKIP() << "FORGE_EXTRA_TOOL_TEMPLATES not set";
    const json goldens = json::parse(read_text(std::string(dir) + "/expected.json"));
    ASSERT_FALSE(goldens.empty());
    for (const json& g : goldens) {
        const std::string source = read_text(std::string(dir) + "/" + g["template"].get<std::string>() + ".jinja");
        EXPECT_EQ(detect_tool_format(source), ToolFormat::Llama3Json);
        ChatOptions options;
        options.add_generation_prompt = g["add_generation_prompt"];
        options.tools = g["tools"];
        const std::string label = g["template"].get<std::string>() + "/" + g["conversation"].get<std::string>();
        if (g.contains("error")) {
            EXPECT_THROW(render_chat(source, messages_of(g["messages"]), options), Error) << label;
        } else {
            EXPECT_EQ(render_chat(source, messages_of(g["messages"]), options), g["expected"].get<std::string>()) << label;
        }
    }
}

}  // namespace
}  // namespace forge::llm::tool_calls
