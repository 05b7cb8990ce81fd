// Chat templates vs @huggingface/jinja: each real template in test/data/chat_templates/,
// rendered for the conversations in chat_expected.json (tools/llm_text/chat_template_oracle.mjs),
// must give the same text, or fail where the reference raised.
#include "models/llm/chat_template/chat_template.h"
#include "test/models/llm_text/fixture.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

namespace forge::llm {
namespace {

std::string read_template(const std::string& name) {
    std::ifstream in(test::data_path("../chat_templates/" + name + ".jinja"));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<ChatMessage> messages_of(const nlohmann::json& json) {
    std::vector<ChatMessage> messages;
    for (const auto& m : json) {
        messages.push_back({m["role"], m["content"], m.value("reasoning_content", std::string())});
    }
    return messages;
}

// gpt-oss's template prints today's date (strftime_now): compared as "a date", the golden was
// rendered on another day.
std::string any_date(const std::string& text) {
    static const std::regex date("Current date: [0-9]{4}-[0-9]{2}-[0-9]{2}\n");
    return std::regex_replace(text, date, "Current date: YYYY-MM-DD\n");
}

class ChatTemplateGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(ChatTemplateGolden, MatchesHuggingFaceJinja) {
    const auto goldens = test::read_json(test::data_path("chat_expected.json"));
    const std::string source = read_template(GetParam());
    int checked = 0;
    for (const auto& g : goldens) {
        if (g["template"] != GetParam()) continue;
        ChatOptions options;
        options.add_generation_prompt = g["add_generation_prompt"];
        options.bos_token = g["bos_token"];
        options.eos_token = g["eos_token"];
        if (g.contains("enable_thinking")) options.enable_thinking = g["enable_thinking"].get<bool>();
        const auto messages = messages_of(g["messages"]);
        const std::string label = GetParam() + "/" + g["conversation"].get<std::string>();
        if (g.contains("error")) {
            EXPECT_THROW(render_chat(source, messages, options), Error) << label;
        } else {
            EXPECT_EQ(any_date(render_chat(source, messages, options)), any_date(g["expected"].get<std::string>()))
                << label;
        }
        ++checked;
    }
    EXPECT_GE(checked, 9);
}

INSTANTIATE_TEST_SUITE_P(RealTemplates, ChatTemplateGolden,
                         ::testing::Values("chatml", "forge-bpe", "gemma3", "gpt-oss", "llama3", "mistral", "phi3",
                                           "qwen3", "smollm3"));

TEST(ChatTemplate, MissingTemplateFallsBackToChatml) {
    const std::vector<ChatMessage> messages{{"user", "Hi", ""}};
    EXPECT_EQ(render_chat("", messages, {}), "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
}

TEST(ChatTemplate, RaiseExceptionCarriesTheMessage) {
    try {
        render_chat("{{ raise_exception('no system role') }}", {}, {});
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no system role"), std::string::npos);
    }
}

void expect_error_mentions(std::string_view source, std::string_view needle) {
    try {
        render_chat(source, {}, {});
        FAIL() << "expected an error for " << source;
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(ChatTemplate, UnknownConstructsNameThemselvesAndTheirPosition) {
    expect_error_mentions("{% include 'x' %}", "unsupported statement {% include %}");
    expect_error_mentions("a\n{{ x | frobnicate }}", "line 2, column 6: unsupported filter 'frobnicate'");
    expect_error_mentions("{{ x is prime }}", "unsupported test 'is prime'");
    expect_error_mentions("{{ 'a'.zfill(3) }}", "unsupported function or method 'zfill'");
    expect_error_mentions("{% if x %}", "missing {% endif %}");
    expect_error_mentions("{{ 'abc }}", "unterminated string");
}

TEST(ChatTemplate, ExpressionsFollowPythonSemantics) {
    const auto render = [](std::string_view source) {
        ChatOptions options;
        options.add_generation_prompt = false;
        return render_chat(source, {}, options);
    };
    EXPECT_EQ(render("{{ [1, 2, 3][::-1] }}"), "[3, 2, 1]");
    EXPECT_EQ(render("{{ 'abc'[1:] ~ 'x' }}"), "bcx");
    EXPECT_EQ(render("{{ -7 // 2 }} {{ -7 % 3 }} {{ 2 ** 10 }}"), "-4 2 1024");
    EXPECT_EQ(render("{% set ns = namespace(n=0) %}{% for i in range(4) %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}"), "6");
    EXPECT_EQ(render("{% set x = 1 %}{% for i in [1] %}{% set x = 2 %}{% endfor %}{{ x }}"), "1");  // loop scope
    EXPECT_EQ(render("{% for k, v in {'a': 1, 'b': 2}.items() %}{{ k }}={{ v }}{% if not loop.last %},{% endif %}{% endfor %}"), "a=1,b=2");
    EXPECT_EQ(render("{{ ' a b '.strip().upper().split(' ') | length }}"), "2");
    EXPECT_EQ(render("{{ {'x': [1, 'y', none, true]} | tojson }}"), "{\"x\": [1, \"y\", null, true]}");
    EXPECT_EQ(render("{% macro greet(name, end='!') %}hi {{ name }}{{ end }}{% endmacro %}{{ greet('bob') }}"), "hi bob!");
    EXPECT_EQ(render("  {% if true %}\n    yes\n  {% endif %}\n"), "    yes\n");  // trim_blocks + lstrip_blocks
    EXPECT_EQ(render("a  {%- if true -%}  b  {%- endif -%}  c"), "abc");
    EXPECT_EQ(render("{{ x is defined }} {{ none is none }} {{ 'a' is string }} {{ 3 is not string }}"), "False True True True");
}

}  // namespace
}  // namespace forge::llm
