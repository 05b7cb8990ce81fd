// The grammar engine against hostile patterns and schemas (issue 32): each input here once
// crashed forge, hung it, took gigabytes or was answered as the server's fault. Now each
// compiles to a small unambiguous grammar, or is refused with a GrammarLimitError /
// SchemaError that names the place, quickly. No timings are asserted: a regression shows as
// a failed check on the parse state or the error, or as the test's timeout.
#include "models/llm/grammar/grammar_limits.h"
#include "models/llm/grammar/json_schema.h"
#include "models/llm/grammar/matcher.h"
#include "models/llm/grammar/regex_grammar.h"
#include "models/llm/grammar/response_format.h"
#include "test/models/llm/grammar_testing.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace forge::llm::grammar {
namespace {

using json = nlohmann::ordered_json;

// The most parse stacks open after any byte of `text`.
std::size_t most_stacks(const std::shared_ptr<const Grammar>& g, std::string_view text) {
    Matcher m(g);
    std::size_t most = m.stacks().size();
    for (char c : text) {
        EXPECT_TRUE(m.accept(std::string_view(&c, 1)));
        most = std::max(most, m.stacks().size());
    }
    return most;
}

// The message of the SchemaError `format` (a response_format) is refused with, and its path.
std::pair<std::string, std::string> refusal(const json& schema) {
    try {
        compile_response_format(json{{"type", "json_schema"}, {"json_schema", {{"name", "s"}, {"schema", schema}}}});
    } catch (const SchemaError& e) {
        return {e.path(), e.what()};
    }
    ADD_FAILURE() << "not refused: " << schema.dump().substr(0, 200);
    return {};
}

// `count` string properties, property i with the pattern ^L{0,n}$ for a letter of its own
// (identical patterns would share their rules).
json repeat_properties(int count, int n) {
    json schema = {{"type", "object"}, {"properties", json::object()}};
    for (int i = 0; i < count; ++i) {
        const char letter = static_cast<char>(i < 26 ? 'A' + i : 'a' + i - 26);
        schema["properties"][fmt::format("p{}", i)] = {{"type", "string"}, {"pattern", fmt::format("^{}{{0,{}}}$", letter, n)}};
    }
    return schema;
}

TEST(GrammarLimits, RepeatingAnItemThatCanBeEmptyKeepsOneParse) {
    // (a?){0,n} was n parses after each byte (one per repetition the 'a' could belong to).
    const auto g = compile_regex("(a?){0,300}");
    EXPECT_LE(most_stacks(g, std::string(300, 'a')), 2u);
    EXPECT_TRUE(matches(g, ""));
    EXPECT_TRUE(matches(g, std::string(300, 'a')));
    EXPECT_FALSE(matches(g, std::string(301, 'a')));
    // At 6000 it took minutes per byte (and 99999 overflowed the stack).
    const auto big = compile_regex("(a?){0,6000}");
    EXPECT_LE(most_stacks(big, std::string(2000, 'a')), 2u);
    // Unanchored (JSON Schema's default), such a pattern is found in every string.
    const auto anywhere = compile_json_schema(json{{"type", "string"}, {"pattern", "(a?){0,6000}"}});
    EXPECT_TRUE(matches(anywhere, "\"xyz\""));
    EXPECT_LE(most_stacks(anywhere, "\"" + std::string(500, 'a')), 64u);  // a JSON string's characters
    EXPECT_TRUE(matches(compile_regex("(a?b?){2,3}c"), "abbac"));
    EXPECT_TRUE(matches(compile_regex("(a?b?){2,3}c"), "c"));
    EXPECT_FALSE(matches(compile_regex("(a?b?){2,3}c"), "ababbac"));
}

TEST(GrammarLimits, StarsOfItemsThatCanBeEmptyAreAcceptedAsRegexEnginesDo) {
    // These were refused as "left recursion" (a 500 in serve).
    for (const char* pattern : {"(a*)*", "(|a)*", "(a|)+", "((a?)(b?))*", "(a*)*b", "(()|a){3,}"}) {
        SCOPED_TRACE(pattern);
        const auto g = compile_regex(pattern);
        const bool needs_b = std::string_view(pattern).ends_with("b");
        EXPECT_TRUE(matches(g, needs_b ? "aaab" : "aaa"));
        EXPECT_TRUE(matches(g, needs_b ? "b" : ""));
        EXPECT_FALSE(matches(g, "c"));
        EXPECT_LE(most_stacks(g, "aaaaaaaaaa"), 3u);
    }
    EXPECT_TRUE(matches(compile_regex("((a?)(b?))*"), "abba"));
    EXPECT_TRUE(matches(compile_regex("(){0,5}x"), "x"));
}

TEST(GrammarLimits, RepetitionCountsPastTheLimitAreErrorsNotText) {
    EXPECT_THROW(compile_regex("(a?){0,99999}"), GrammarLimitError);
    EXPECT_THROW(compile_regex("X{0,10001}"), GrammarLimitError);
    try {
        compile_regex("a{99999999999999999999}");  // was taken as the literal text "a{999...}"
        FAIL();
    } catch (const GrammarLimitError& e) {
        EXPECT_NE(std::string(e.what()).find("repetition count 99999999999999999999"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(compile_regex("X{0,10000}"));
    EXPECT_TRUE(matches(compile_regex("a{,5}"), "a{,5}"));  // not a repetition: literal, as before
    const auto [path, message] = refusal(json{{"type", "string"}, {"pattern", "^(a?){0,99999}$"}});
    EXPECT_EQ(path, "response_format.json_schema.schema/pattern");
    EXPECT_NE(message.find("over the supported 10000"), std::string::npos) << message;
}

TEST(GrammarLimits, AGrammarPastTheSizeBudgetIsRefusedWhereItRanOut) {
    // 25 of these took 0.9 GB (at {0,99999}), and serve cached 64 such grammars. The budget
    // stops the schema at the property where it runs out, and says which.
    const auto [path, message] = refusal(repeat_properties(40, 9999));
    EXPECT_TRUE(path.starts_with("response_format.json_schema.schema/properties/p")) << path;
    EXPECT_TRUE(path.ends_with("/pattern")) << path;
    EXPECT_NE(message.find("symbols"), std::string::npos) << message;
    // Within the budget it compiles, and says what it takes.
    const auto g = compile_json_schema(repeat_properties(5, 9999));
    EXPECT_LE(g->element_count(), kMaxElements);
    EXPECT_GT(g->memory_bytes(), g->element_count() * sizeof(Symbol));
    EXPECT_LT(g->memory_bytes(), 64 * g->element_count());
    // A huge literal is refused before it is built.
    EXPECT_THROW(compile_json_schema(json{{"const", std::string(kMaxElements + 1, 'x')}}), SchemaError);
}

TEST(GrammarLimits, SelfReferencesThatWriteNothingNameTheirPath) {
    // Were a forge::Error about "left recursion" in an internal rule: a 500 in serve.
    auto [path, message] = refusal(json::parse(R"({"$ref": "#"})"));
    EXPECT_EQ(path, "response_format.json_schema.schema/$ref");
    EXPECT_NE(message.find("left recursion"), std::string::npos) << message;
    std::tie(path, message) = refusal(json::parse(R"({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"})"));
    EXPECT_EQ(path, "response_format.json_schema.schema/$defs/a/$ref");
    std::tie(path, message) = refusal(json::parse(R"({"$defs": {"a": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/b"}]},
                                                                 "b": {"allOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"})"));
    EXPECT_EQ(path, "response_format.json_schema.schema/$defs/b/allOf/0/$ref");
    // Recursion through a bracket writes something first: allowed, as before.
    const auto tree = compile_json_schema(json::parse(R"({"type": "array", "items": {"$ref": "#"}})"));
    EXPECT_TRUE(matches(tree, "[[], [[]]]"));
}

TEST(GrammarLimits, ALargeEnumIsATrieWithOneParse) {
    json schema = {{"enum", json::array()}};
    for (int i = 0; i < 2000; ++i) schema["enum"].push_back("value-" + std::to_string(i));
    schema["enum"].push_back(42);
    schema["enum"].push_back("value-1");  // a repeated value is no second parse
    const auto g = compile_json_schema(schema);
    // Side by side, the 2000 values were 2000 stacks; in the trie, one per byte that may follow.
    EXPECT_LE(most_stacks(g, "\"value-1999\""), 11u);
    EXPECT_TRUE(matches(g, "\"value-1999\""));
    EXPECT_TRUE(matches(g, "\"value-1\""));
    EXPECT_TRUE(matches(g, "42"));
    EXPECT_FALSE(matches(g, "\"value-2000\""));
    EXPECT_FALSE(matches(g, "\"value-\""));
    // 100 000 values (0.8 MB) compile in linear time, to a grammar that shares its subtrees.
    json big = {{"enum", json::array()}};
    for (int i = 0; i < 100000; ++i) big["enum"].push_back(std::to_string(i * 7));
    const auto large = compile_json_schema(big);
    EXPECT_LT(large->element_count(), 10000u);
    EXPECT_TRUE(matches(large, "\"" + std::to_string(54321 * 7) + "\""));
    EXPECT_FALSE(matches(large, "\"1\""));
    // Past kMaxChoiceBytes (a 3 MB enum took 155 s), refused before the trie is built.
    json huge = {{"enum", json::array()}};
    for (int i = 0; i < 200000; ++i) huge["enum"].push_back(std::string(11, 'x') + std::to_string(i));
    EXPECT_THROW(compile_json_schema(huge), SchemaError);
}

TEST(GrammarLimits, AnAmbiguousPatternEndsWithAnErrorNotAStall) {
    // Genuinely ambiguous (the split between the two runs): one parse per split so far.
    const auto g = compile_regex("a{0,2000}a{0,2000}");
    Matcher m(g);
    EXPECT_TRUE(m.accept(std::string(500, 'a')));
    EXPECT_GT(m.stacks().size(), 400u);
    EXPECT_THROW(m.accept(std::string(1000, 'a')), GrammarLimitError);
    // Where the first state is already past the bound, compiling refuses it.
    json any_of = {{"anyOf", json::array()}};
    for (int i = 0; i < 1100; ++i) any_of["anyOf"].push_back({{"type", "integer"}, {"minimum", i}, {"maximum", i}});
    EXPECT_EQ(refusal(any_of).first, "response_format.json_schema.schema");
    // A choice of constants is a trie like an enum, however many there are.
    json constants = {{"anyOf", json::array()}};
    for (int i = 0; i < 1100; ++i) constants["anyOf"].push_back({{"const", i}, {"title", "n"}});
    constants["anyOf"].push_back({{"enum", {"x", nullptr}}});
    const auto choice = compile_json_schema(constants);
    EXPECT_TRUE(matches(choice, "1099"));
    EXPECT_TRUE(matches(choice, "null"));
    EXPECT_FALSE(matches(choice, "1100"));
    EXPECT_LE(most_stacks(choice, "109"), 16u);  // one per byte that may follow
}

TEST(GrammarLimits, DeepNestingIsMatchedWithoutRecursion) {
    // json_object nests without bound: a 100 000-deep array is a stack of 300 000 frames,
    // which the matcher's expansion and compaction walk iteratively.
    const auto g = json_object_grammar();
    Matcher m(g);
    EXPECT_TRUE(m.accept("{\"a\":"));
    const std::string open(100000, '[');
    for (std::size_t i = 0; i < open.size(); i += 25000) EXPECT_TRUE(m.accept(std::string_view(open).substr(i, 25000)));
    EXPECT_TRUE(m.accept(std::string(100000, ']') + "}"));
    EXPECT_TRUE(m.complete());
}

}  // namespace
}  // namespace forge::llm::grammar
