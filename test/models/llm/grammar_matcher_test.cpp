// The grammar engine without a vocabulary: what the regex subset, JSON Schema and json_object
// grammars accept and reject, byte by byte, and the errors for what they cannot compile.
#include "models/llm/grammar/json_schema.h"
#include "models/llm/grammar/matcher.h"
#include "models/llm/grammar/regex_grammar.h"
#include "models/llm/grammar/response_format.h"
#include "test/models/llm/grammar_testing.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace forge::llm::grammar {
namespace {

using json = nlohmann::ordered_json;

// Whether `text` can still be continued into a sentence.
bool prefix_ok(const std::shared_ptr<const Grammar>& g, std::string_view text) {
    Matcher m(g);
    return m.accept(text);
}

TEST(GrammarRegex, LiteralsClassesAndQuantifiers) {
    const auto g = compile_regex(R"(^[a-c]+\d{2,3}(x|yz)?$)");
    EXPECT_TRUE(matches(g, "ab12"));
    EXPECT_TRUE(matches(g, "c123yz"));
    EXPECT_TRUE(matches(g, "a99x"));
    EXPECT_FALSE(matches(g, "ab1"));
    EXPECT_FALSE(matches(g, "ab1234"));
    EXPECT_FALSE(matches(g, "d12"));
    EXPECT_TRUE(prefix_ok(g, "ab1"));
    EXPECT_FALSE(prefix_ok(g, "ab1y2"));
}

TEST(GrammarRegex, NegatedClassesAndDotSpanMultiByteCharacters) {
    const auto g = compile_regex("[^a]é.");
    EXPECT_TRUE(matches(g, "bé€"));
    EXPECT_TRUE(matches(g, "ßé😀"));
    EXPECT_FALSE(matches(g, "aéb"));
    EXPECT_FALSE(matches(g, "bé\n"));
    // A token can end inside a character: "€" is E2 82 AC.
    Matcher m(g);
    EXPECT_TRUE(m.accept("b\xC3"));
    EXPECT_TRUE(m.accept("\xA9\xE2\x82"));
    EXPECT_FALSE(m.complete());
    EXPECT_FALSE(m.accept("\x41"));  // not a continuation byte
    EXPECT_TRUE(m.accept("\xAC"));
    EXPECT_TRUE(m.complete());
    EXPECT_FALSE(matches(g, "b\xC3\xA9\xFF"));  // invalid UTF-8 is never generated
}

TEST(GrammarRegex, UnsupportedConstructsNameThemselves) {
    for (const char* bad : {"(?=a)b", "a\\1", "a{3,2}", "[b-a]", "(ab", "*a", "a^b"}) {
        EXPECT_THROW(compile_regex(bad), Error) << bad;
    }
    try {
        compile_regex("x(?<=y)");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("offset"), std::string::npos) << e.what();
    }
}

TEST(GrammarHostileInput, DeepNestingIsAnErrorNotAStackOverflow) {
    EXPECT_THROW(compile_regex(std::string(100000, '(') + std::string(100000, ')')), Error);
    json schema = json::object();
    for (int i = 0; i < 1000; ++i) schema = json{{"type", "array"}, {"items", schema}};
    EXPECT_THROW(compile_json_schema(schema), SchemaError);
    EXPECT_THROW(compile_json_schema(json{{"type", "string"}, {"maxLength", 1000000}}), SchemaError);
}

TEST(GrammarJsonSchema, ObjectWithRequiredAndOptionalProperties) {
    const auto g = compile_json_schema(json::parse(R"({
        "type": "object",
        "properties": {"name": {"type": "string"}, "age": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["name"]})"));
    EXPECT_TRUE(matches(g, R"({"name": "Ada"})"));
    EXPECT_TRUE(matches(g, R"({"name":"Ada","age":36,"tags":["x","y"]})"));
    EXPECT_TRUE(matches(g, "{\n  \"name\": \"A\\\"b\\u00e9\",\n  \"tags\": []\n}"));
    EXPECT_FALSE(matches(g, R"({"age": 36})"));                 // name is required
    EXPECT_FALSE(matches(g, R"({"name": "Ada", "extra": 1})"));  // additionalProperties defaults to false here
    EXPECT_FALSE(matches(g, R"({"name": "Ada",})"));
    EXPECT_FALSE(matches(g, R"({"name": "A)" "\n" R"("})"));    // raw control character in a string
}

TEST(GrammarJsonSchema, OnlyOptionalPropertiesMayAllBeLeftOut) {
    const auto g = compile_json_schema(json::parse(R"({"properties": {"a": {"type": "boolean"}, "b": {"type": "null"}}})"));
    EXPECT_TRUE(matches(g, "{}"));
    EXPECT_TRUE(matches(g, R"({"b": null})"));
    EXPECT_TRUE(matches(g, R"({"a": true, "b": null})"));
    EXPECT_FALSE(matches(g, R"({"b": null, "a": true})"));  // the schema's order
}

TEST(GrammarJsonSchema, EnumConstAnyOfAndTypeLists) {
    const auto g = compile_json_schema(json::parse(R"({"type": "object", "properties": {
        "color": {"enum": ["red", "green", 3]}, "kind": {"const": "k"},
        "v": {"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 2}]}, "n": {"type": ["number", "null"]}},
        "required": ["color", "kind", "v", "n"]})"));
    EXPECT_TRUE(matches(g, R"({"color": "red", "kind": "k", "v": 12, "n": null})"));
    EXPECT_TRUE(matches(g, R"({"color": 3, "kind": "k", "v": "ab", "n": -1.5e3})"));
    EXPECT_FALSE(matches(g, R"({"color": "blue", "kind": "k", "v": 1, "n": 1})"));
    EXPECT_FALSE(matches(g, R"({"color": 3, "kind": "k", "v": "abc", "n": 1})"));
}

TEST(GrammarJsonSchema, ArrayAndStringLengths) {
    const auto g = compile_json_schema(json::parse(R"({"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 3}, "minItems": 2, "maxItems": 3})"));
    EXPECT_TRUE(matches(g, R"(["a", "bcd"])"));
    EXPECT_TRUE(matches(g, R"(["a","b","c"])"));
    EXPECT_FALSE(matches(g, R"(["a"])"));
    EXPECT_FALSE(matches(g, R"(["a","b","c","d"])"));
    EXPECT_FALSE(matches(g, R"(["", "b"])"));
    EXPECT_FALSE(matches(g, R"(["abcd", "b"])"));
    EXPECT_TRUE(matches(g, R"(["é€😀", "b"])"));  // lengths count characters, not bytes
}

TEST(GrammarJsonSchema, IntegerRanges) {
    const auto g = compile_json_schema(json::parse(R"({"type": "integer", "minimum": -15, "exclusiveMaximum": 120})"));
    for (int v = -30; v <= 150; ++v) EXPECT_EQ(matches(g, std::to_string(v)), v >= -15 && v < 120) << v;
    EXPECT_FALSE(matches(g, "007"));
    EXPECT_FALSE(matches(g, "-0"));
    const auto positive = compile_json_schema(json::parse(R"({"type": "integer", "minimum": 1000})"));
    EXPECT_TRUE(matches(positive, "1000"));
    EXPECT_TRUE(matches(positive, "99999999"));
    EXPECT_FALSE(matches(positive, "999"));
    EXPECT_FALSE(matches(positive, "-5000"));
}

TEST(GrammarJsonSchema, NumberRanges) {
    const auto g = compile_json_schema(json::parse(R"({"type": "number", "minimum": -2, "maximum": 10})"));
    for (const char* ok : {"0", "10", "10.000", "9.99", "-2", "-1.5", "-2.0", "3"}) EXPECT_TRUE(matches(g, ok)) << ok;
    for (const char* bad : {"10.5", "11", "-2.01", "-3", "1e3"}) EXPECT_FALSE(matches(g, bad)) << bad;
}

TEST(GrammarJsonSchema, LocalRefsIncludingRecursion) {
    const auto g = compile_json_schema(json::parse(R"({
        "$defs": {"node": {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]}}, "required": ["v", "next"]}},
        "$ref": "#/$defs/node"})"));
    EXPECT_TRUE(matches(g, R"({"v": 1, "next": {"v": 2, "next": null}})"));
    EXPECT_FALSE(matches(g, R"({"v": 1, "next": {"v": 2}})"));
}

TEST(GrammarJsonSchema, PatternAndFormat) {
    const auto g = compile_json_schema(json::parse(R"({"type": "object", "properties": {
        "code": {"type": "string", "pattern": "^[A-Z]{2}-\\d+$"}, "when": {"type": "string", "format": "date"},
        "q": {"type": "string", "pattern": "^a\"b$"}}, "required": ["code", "when", "q"]})"));
    EXPECT_TRUE(matches(g, R"({"code": "AB-12", "when": "2024-02-29", "q": "a\"b"})"));
    EXPECT_FALSE(matches(g, R"({"code": "AB12", "when": "2024-02-29", "q": "a\"b"})"));
    EXPECT_FALSE(matches(g, R"({"code": "AB-1", "when": "2024-13-01", "q": "a\"b"})"));
}

TEST(GrammarJsonSchema, WhitespaceIsBounded) {
    const auto g = compile_json_schema(json::parse(R"({"type": "array"})"));
    EXPECT_TRUE(matches(g, "[ 1,\n    2 ]"));
    EXPECT_FALSE(prefix_ok(g, "[  "));  // at most one space, or a newline and an indent
    EXPECT_FALSE(prefix_ok(g, "[\n" + std::string(21, ' ')));
}

TEST(GrammarJsonSchema, JsonObjectIsAnyObject) {
    const auto g = json_object_grammar();
    EXPECT_TRUE(matches(g, R"({"a": [1, {"b": null}, "x", true, -0.5e-3]})"));
    EXPECT_TRUE(matches(g, "{}"));
    EXPECT_FALSE(matches(g, "[]"));
    EXPECT_FALSE(matches(g, R"({"a": 01})"));
}

void expect_schema_error(const char* schema, const std::string& path, const std::string& word) {
    try {
        compile_response_format(json{{"type", "json_schema"}, {"json_schema", {{"name", "t"}, {"schema", json::parse(schema)}}}});
        ADD_FAILURE() << "no error for " << schema;
    } catch (const SchemaError& e) {
        EXPECT_EQ(e.path(), path) << e.what();
        EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
    }
}

TEST(GrammarJsonSchema, UnsupportedOrInvalidSchemasNameTheFeatureAndPath) {
    expect_schema_error(R"({"type": "object", "properties": {"a": {"type": "string", "contentEncoding": "base64"}}})",
                        "response_format.json_schema.schema/properties/a/contentEncoding", "contentEncoding");
    expect_schema_error(R"({"type": "strnig"})", "response_format.json_schema.schema/type", "strnig");
    expect_schema_error(R"({"$ref": "#/$defs/missing"})", "response_format.json_schema.schema/$ref", "points at nothing");
    expect_schema_error(R"({"$ref": "http://x/y.json"})", "response_format.json_schema.schema/$ref", "local");
    expect_schema_error(R"({"type": "array", "minItems": 3, "maxItems": 2})", "response_format.json_schema.schema/maxItems", "minItems");
    expect_schema_error(R"({"type": "string", "format": "hostname"})", "response_format.json_schema.schema/format", "hostname");
    expect_schema_error(R"j({"type": "string", "pattern": "(?!x)"})j", "response_format.json_schema.schema/pattern", "lookaround");
    expect_schema_error(R"({"type": "integer", "minimum": 5, "maximum": 4})", "response_format.json_schema.schema", "bounds");
    EXPECT_THROW(compile_response_format(json{{"type", "xml"}}), SchemaError);
    EXPECT_EQ(compile_response_format(json{{"type", "text"}}), nullptr);
}

}  // namespace
}  // namespace forge::llm::grammar
