// Hostile chat templates. A template is code inside every GGUF file forge opens; rendering
// one must end with text or an Error naming the position, never a crash, whatever it does:
// arithmetic that C++ leaves undefined, values that contain themselves, recursion, deep
// nesting, loops and strings that grow without bound. Python's Jinja raises an error for
// each of these (RecursionError, MemoryError) or computes a big integer; forge raises.
#include "core/error.h"
#include "models/llm/chat_template/chat_template.h"
#include "models/llm/chat_template/limits.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace forge::llm {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string render(const std::string& source) {
    const std::vector<ChatMessage> messages = {{"user", "hi", ""}};
    return render_chat(source, messages, {});
}

std::string error_of(const std::string& source) {
    const auto start = std::chrono::steady_clock::now();
    std::string message;
    try {
        render(source);
    } catch (const Error& e) {
        message = e.what();
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30.0) << source;
    return message;
}

std::string repeat(const std::string& text, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += text;
    return out;
}

TEST(ChatTemplateHostile, IntegerOverflowIsAnErrorNotUndefined) {
    // INT64_MIN % -1 raised SIGFPE.
    EXPECT_EQ(render("{{ (-9223372036854775807 - 1) % -1 }}"), "0");
    EXPECT_THAT(error_of("{{ (-9223372036854775807 - 1) // -1 }}"), HasSubstr("integer overflow"));
    EXPECT_THAT(error_of("{{ 9223372036854775807 + 1 }}"), HasSubstr("chat template line 1"));
    EXPECT_THAT(error_of("{{ 9223372036854775807 * 2 }}"), HasSubstr("integer overflow"));
    EXPECT_THAT(error_of("{{ 2 ** 64 }}"), HasSubstr("integer overflow"));
    EXPECT_THAT(error_of("{{ -(-9223372036854775807 - 1) }}"), HasSubstr("integer overflow"));
    EXPECT_THAT(error_of("{{ 99999999999999999999 }}"), HasSubstr("out of range"));
    // Python's floor division and modulo still hold.
    EXPECT_EQ(render("{{ -7 // 2 }} {{ -7 % 3 }} {{ 7 % -3 }} {{ 2 ** 10 }}"), "-4 2 -2 1024");
}

TEST(ChatTemplateHostile, ListThatContainsItselfIsAnError) {
    EXPECT_THAT(error_of("{% set x = [] %}{{ x.append(x) }}{{ x }}"), HasSubstr("cannot contain itself"));
    EXPECT_THAT(error_of("{% set ns = namespace(a=1) %}{% set ns.a = ns %}{{ ns }}"), HasSubstr("cannot contain itself"));
}

TEST(ChatTemplateHostile, RecursiveMacroStopsWithAnError) {
    EXPECT_THAT(error_of("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}"), HasSubstr("levels deep"));
    // Recursion that ends is fine.
    EXPECT_EQ(render("{% macro f(n) %}{% if n > 0 %}{{ n }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(5) }}"), "54321");
}

TEST(ChatTemplateHostile, DeepNestingIsAParseError) {
    EXPECT_THAT(error_of("{{ " + repeat("(", 5000) + "1" + repeat(")", 5000) + " }}"), HasSubstr("nested more than"));
    EXPECT_THAT(error_of("{{ " + repeat("[", 5000) + repeat("]", 5000) + " }}"), HasSubstr("nested more than"));
    EXPECT_THAT(error_of("{{ " + repeat("-", 100000) + "1 }}"), HasSubstr("nested more than"));
    EXPECT_THAT(error_of("{{ " + repeat("not ", 100000) + "1 }}"), HasSubstr("nested more than"));
    EXPECT_THAT(error_of("{{ 1" + repeat(" + 1", 100000) + " }}"), HasSubstr("nested more than"));
    EXPECT_THAT(error_of("{{ x" + repeat(".a", 100000) + " }}"), HasSubstr("nested more than"));
    EXPECT_THAT(error_of(repeat("{% if 1 %}", 5000) + repeat("{% endif %}", 5000)), HasSubstr("nested more than"));
    // 50 levels is fine.
    EXPECT_EQ(render("{{ " + repeat("(", 50) + "1" + repeat(")", 50) + " }}"), "1");
}

TEST(ChatTemplateHostile, DeepValuesBuiltInALoopAreBounded) {
    // Each iteration wraps the last list in a new one: printing or comparing it would recurse.
    EXPECT_THAT(error_of("{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}{% endfor %}"),
                HasSubstr("nested more than"));
}

TEST(ChatTemplateHostile, DeepToolCallArgumentsStayText) {
    // A request's tool-call arguments are JSON text that templates get parsed; 200 000 '['
    // overflowed the stack while they became template values. Nested deeper than a template
    // value may be, they stay the text they were.
    const std::string deep = repeat("[", 200000) + repeat("]", 200000);
    ChatMessage call{"assistant", "", ""};
    call.tool_calls = {{"call_1", "f", deep}, {"call_2", "g", R"({"city": "Oslo"})"}};
    const std::vector<ChatMessage> messages = {{"user", "hi", ""}, call};
    const std::string text = render_chat(
        "{% for m in messages %}{% for c in m.tool_calls or [] %}"
        "{% if c.function.arguments is string %}text {% else %}value {% endif %}{% endfor %}{% endfor %}",
        messages, {});
    EXPECT_EQ(text, "text value ");
}

TEST(ChatTemplateHostile, RunawayLoopsAndStringsAreBounded) {
    EXPECT_THAT(error_of("{{ range(9223372036854775807) | length }}"), HasSubstr("range()"));
    EXPECT_THAT(error_of("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"),
                HasSubstr("steps"));
    EXPECT_THAT(error_of("{% set ns = namespace(s='x') %}{% for i in range(100) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}"),
                HasSubstr("MiB"));
    EXPECT_THAT(error_of("{{ ('x' * 1) }}"), HasSubstr("chat template line 1"));
    EXPECT_THAT(error_of("{{ ('a' ~ 'a' ~ 'a' ~ 'a') | replace('a', '" + std::string(1 << 20, 'b') + "') | replace('b', '" +
                         std::string(1 << 10, 'c') + "') }}"),
                HasSubstr("MiB"));
    EXPECT_THAT(error_of("{{ [1, 2, 3][::9223372036854775807] }}"), "");
}

TEST(ChatTemplateHostile, LibraryErrorsBecomeSentences) {
    // std::get's and std::stoll's own messages never reach the user.
    EXPECT_THAT(error_of("{{ range('a') }}"), StartsWith("chat template line 1"));
    EXPECT_THAT(error_of("{{ 'abc' | int }}"), "");
    EXPECT_EQ(render("{{ 'abc' | int }} {{ '12' | int }} {{ '1e999' | int }} {{ ' 2.5 ' | float }}"), "0 12 0 2.5");
}

}  // namespace
}  // namespace forge::llm
