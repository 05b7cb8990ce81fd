// forge serve's request parsing and response shapes, without a server: every field that is
// honoured lands in the engine options, every field that cannot be is a 400 naming it.
#include "app/serve/api_error.h"
#include "app/serve/body_budget.h"
#include "app/serve/metrics.h"
#include "app/serve/openai_request.h"
#include "app/serve/openai_response.h"
#include "app/serve/prompt_budget.h"
#include "models/llm/grammar/json_schema.h"
#include "models/llm/grammar/matcher.h"

#include <fmt/format.h>

#include <gtest/gtest.h>

namespace forge::app::serve {
namespace {

using nlohmann::json;

const RequestLimits kLimits{1000, 64};

CompletionRequest chat(json body) {
    if (!body.contains("messages")) body["messages"] = json::array({{{"role", "user"}, {"content", "hi"}}});
    return parse_request(Endpoint::ChatCompletions, body, kLimits);
}

// The param of the ApiError that parsing `body` throws ("" when none is thrown).
std::string refused_param(Endpoint endpoint, const json& body) {
    try {
        parse_request(endpoint, body, kLimits);
    } catch (const ApiError& e) {
        EXPECT_EQ(e.status(), 400);
        return e.param().empty() ? "(no param)" : e.param();
    }
    return "";
}

std::string chat_refused(json body) {
    if (!body.contains("messages")) body["messages"] = json::array({{{"role", "user"}, {"content", "hi"}}});
    return refused_param(Endpoint::ChatCompletions, body);
}

TEST(ServeRequest, ChatMessagesAndDefaults) {
    const CompletionRequest r = chat({{"messages", json::array({{{"role", "developer"}, {"content", "be brief"}},
                                                                {{"role", "user"}, {"content", json::array({{{"type", "text"}, {"text", "a"}},
                                                                                                            {{"type", "text"}, {"text", "b"}}})}},
                                                                {{"role", "assistant"}, {"content", nullptr}},
                                                                {{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", "42"}}})}});
    ASSERT_EQ(r.messages.size(), 4u);
    EXPECT_EQ(r.messages[0].role, "system");
    EXPECT_EQ(r.messages[1].content, "ab");
    EXPECT_EQ(r.messages[2].content, "");
    EXPECT_EQ(r.messages[3].role, "tool");
    EXPECT_EQ(r.messages[3].tool_call_id, "call_1");
    EXPECT_EQ(r.generation.max_tokens, 64);  // --n-predict
    EXPECT_FALSE(r.stream);
    EXPECT_FALSE(r.chat.enable_thinking.has_value());
}

TEST(ServeRequest, SamplingFieldsReachTheEngine) {
    const CompletionRequest r = chat({{"temperature", 0.5}, {"top_p", 0.9}, {"top_k", 7}, {"min_p", 0.1}, {"repeat_penalty", 1.1},
                                      {"presence_penalty", 0.5}, {"frequency_penalty", -0.5}, {"seed", 42}, {"max_tokens", 10},
                                      {"max_completion_tokens", 20}, {"stop", "END"}, {"logit_bias", {{"5", -100}, {"17", 2.5}}},
                                      {"logprobs", true}, {"top_logprobs", 3}, {"stream", true}, {"stream_options", {{"include_usage", true}}},
                                      {"chat_template_kwargs", {{"enable_thinking", false}}}});
    const llm::SamplerOptions& s = r.generation.sampling;
    EXPECT_FLOAT_EQ(s.temperature, 0.5f);
    EXPECT_FLOAT_EQ(s.top_p, 0.9f);
    EXPECT_EQ(s.top_k, 7);
    EXPECT_FLOAT_EQ(s.min_p, 0.1f);
    EXPECT_FLOAT_EQ(s.repeat_penalty, 1.1f);
    EXPECT_FLOAT_EQ(s.presence_penalty, 0.5f);
    EXPECT_FLOAT_EQ(s.frequency_penalty, -0.5f);
    EXPECT_EQ(s.seed, 42u);
    EXPECT_EQ(r.generation.max_tokens, 20);  // max_completion_tokens wins over max_tokens
    EXPECT_EQ(r.generation.stop, std::vector<std::string>{"END"});
    const std::vector<std::pair<std::int32_t, float>> bias{{17, 2.5f}, {5, -100.0f}};  // in the keys' text order
    EXPECT_EQ(r.generation.logit_bias, bias);
    EXPECT_TRUE(r.logprobs);
    EXPECT_EQ(r.generation.top_logprobs, 3);
    EXPECT_TRUE(r.stream);
    EXPECT_TRUE(r.include_usage);
    EXPECT_EQ(r.chat.enable_thinking, std::optional<bool>(false));
}

TEST(ServeRequest, UnsupportedRequestsAreRefusedByName) {
    EXPECT_EQ(chat_refused({{"n", 2}}), "n");
    EXPECT_EQ(chat_refused({{"n", 1}}), "");
    EXPECT_EQ(chat_refused({{"functions", json::array({{{"name", "f"}}})}}), "functions");
    EXPECT_EQ(chat_refused({{"tool_choice", "none"}}), "");
    EXPECT_EQ(chat_refused({{"response_format", {{"type", "text"}}}}), "");
    EXPECT_EQ(refused_param(Endpoint::Completions, {{"prompt", "x"}, {"response_format", {{"type", "json_object"}}}}), "response_format");
    EXPECT_EQ(chat_refused({{"messages", json::array({{{"role", "user"}, {"content", json::array({{{"type", "image_url"}}})}}})}}),
              "messages[0].content[0].type");
    EXPECT_EQ(chat_refused({{"audio", {{"voice", "x"}}}}), "audio");
    EXPECT_EQ(refused_param(Endpoint::Completions, {{"prompt", "x"}, {"echo", true}}), "echo");
    EXPECT_EQ(refused_param(Endpoint::Completions, {{"prompt", json::array({"a", "b"})}}), "prompt");
}

// The message of the ApiError that parsing a chat `body` throws.
std::string chat_refusal(json body) {
    body["messages"] = json::array({{{"role", "user"}, {"content", "hi"}}});
    try {
        parse_request(Endpoint::ChatCompletions, body, kLimits);
    } catch (const ApiError& e) {
        return e.what();
    }
    return "";
}

// n = 1000 was refused as "'n' must be in [1, 128]", as if 2 to 128 would do.
TEST(ServeRequest, ManyChoicesAreRefusedForWhatTheyAre) {
    for (const int n : {2, 128, 1000}) {
        const std::string message = chat_refusal({{"n", n}});
        EXPECT_NE(message.find("one choice per request"), std::string::npos) << message;
        EXPECT_NE(message.find(std::to_string(n)), std::string::npos) << message;
        EXPECT_EQ(message.find("128]"), std::string::npos) << message;
    }
    EXPECT_NE(chat_refusal({{"best_of", 1000}}).find("best_of = 1"), std::string::npos);
    EXPECT_EQ(chat_refused({{"n", 0}}), "n");
    EXPECT_EQ(chat_refused({{"n", "2"}}), "n");
}

// Text too long for the context whatever its tokens is refused by its size, before tokenizing.
TEST(ServeRequest, PromptBytesBoundTheTokens) {
    EXPECT_EQ(max_prompt_bytes(4096, 16), 4095u * 16);
    EXPECT_NO_THROW(check_prompt_bytes(4095 * 16, 4096, 16, "prompt"));
    try {
        check_prompt_bytes(4095 * 16 + 1, 4096, 16, "prompt");
        FAIL() << "8 MiB of text in 4096 tokens of at most 16 bytes was let through";
    } catch (const ApiError& e) {
        EXPECT_EQ(e.status(), 400);
        EXPECT_EQ(e.param(), "prompt");
        EXPECT_EQ(e.code(), "context_length_exceeded");
        EXPECT_NE(std::string(e.what()).find("at most 65520 bytes"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("at least 4096 tokens"), std::string::npos) << e.what();
    }
}

// The memory of bodies in flight: a reservation that does not fit is refused; a released one
// makes room again.
TEST(ServeRequest, BodyBudgetHoldsAtMostItsCapacity) {
    BodyBudget budget(16u << 20);
    BodyBudget::Reservation a, b, c;
    ASSERT_TRUE(budget.try_reserve(8u << 20, a));
    ASSERT_TRUE(budget.try_reserve(8u << 20, b));
    EXPECT_FALSE(budget.try_reserve(1, c));
    EXPECT_EQ(c.bytes(), 0u);
    EXPECT_EQ(budget.in_use(), 16u << 20);
    a = {};  // given back
    EXPECT_EQ(budget.in_use(), 8u << 20);
    EXPECT_TRUE(budget.try_reserve(8u << 20, c));
    BodyBudget::Reservation moved = std::move(c);
    EXPECT_EQ(moved.bytes(), 8u << 20);
    EXPECT_EQ(budget.in_use(), 16u << 20);
}

const json kWeather = {{"type", "function"},
                       {"function", {{"name", "get_weather"},
                                     {"description", "The weather in a city"},
                                     {"parameters", {{"type", "object"},
                                                     {"properties", {{"city", {{"type", "string"}}}}},
                                                     {"required", json::array({"city"})}}}}}};

TEST(ServeRequest, ResponseFormatCompilesToAGrammar) {
    EXPECT_EQ(chat({}).grammar, nullptr);
    EXPECT_EQ(chat({{"response_format", {{"type", "text"}}}}).grammar, nullptr);
    EXPECT_NE(chat({{"response_format", {{"type", "json_object"}}}}).grammar, nullptr);
    const json schema = {{"type", "object"}, {"properties", {{"n", {{"type", "integer"}}}}}, {"required", json::array({"n"})}};
    EXPECT_NE(chat({{"response_format", {{"type", "json_schema"}, {"json_schema", {{"name", "n"}, {"schema", schema}}}}}}).grammar, nullptr);
}

TEST(ServeRequest, TheSameSchemaSharesOneCompiledGrammar) {
    const auto schema_body = [](const json& schema) {
        return json{{"messages", json::array({{{"role", "user"}, {"content", "hi"}}})},
                    {"response_format", {{"type", "json_schema"}, {"json_schema", {{"name", "s"}, {"schema", schema}}}}}};
    };
    const json tools_body = {{"messages", json::array({{{"role", "user"}, {"content", "hi"}}})},
                             {"tools", json::array({kWeather})}, {"tool_choice", "required"}};
    const json a = schema_body({{"type", "integer"}}), b = schema_body({{"type", "boolean"}});
    EXPECT_NE(chat(a).grammar, chat(a).grammar);  // without a cache: compiled each time

    GrammarCache grammars(GrammarCache::kDefaultMaxBytes, 2);
    RequestLimits limits = kLimits;
    limits.grammars = &grammars;
    const auto grammar_of = [&](const json& body) { return parse_request(Endpoint::ChatCompletions, body, limits).grammar; };
    const auto first = grammar_of(a);
    EXPECT_EQ(grammar_of(a), first);  // shared, and so are the token masks computed for it
    EXPECT_NE(grammar_of(b), first);
    EXPECT_EQ(grammar_of(tools_body), grammar_of(tools_body));
    EXPECT_EQ(grammars.size(), 2u);  // b and the tools; a was the least recently used
    EXPECT_NE(grammar_of(a), first);
}

TEST(ServeRequest, TheGrammarCacheIsBoundedByBytes) {
    // A 600-byte schema can compile to megabytes: the cache counts what it holds.
    const auto compile = [](int n) {
        return [n] { return llm::grammar::compile_json_schema(json{{"type", "string"}, {"maxLength", n}}); };
    };
    const auto size = [&](int n) { return compile(n)()->memory_bytes(); };
    GrammarCache grammars(size(5000) + size(5001) + size(5002));
    const auto first = grammars.get("a", compile(5000));
    grammars.get("b", compile(5001));
    grammars.get("c", compile(5002));  // with the keys, past the budget: "a" goes
    EXPECT_LE(grammars.bytes(), size(5000) + size(5001) + size(5002));
    EXPECT_EQ(grammars.size(), 2u);
    EXPECT_NE(grammars.get("a", compile(5000)), first);

    GrammarCache small(size(5000) / 2);  // a grammar over the whole budget serves, is not kept
    const auto alone = small.get("a", compile(5000));
    EXPECT_NE(alone, nullptr);
    EXPECT_EQ(small.size(), 0u);
    EXPECT_NE(small.get("a", compile(5000)), alone);
}

TEST(ServeRequest, HostileSchemasAndPatternsAreA400NamingTheField) {
    const auto schema_refused = [](const json& schema) {
        return chat_refused({{"response_format", {{"type", "json_schema"}, {"json_schema", {{"name", "s"}, {"schema", schema}}}}}});
    };
    EXPECT_EQ(schema_refused({{"type", "string"}, {"pattern", "^(a?){0,99999}$"}}), "response_format.json_schema.schema/pattern");
    EXPECT_EQ(schema_refused({{"type", "string"}, {"pattern", "a{99999999999999999999}"}}), "response_format.json_schema.schema/pattern");
    EXPECT_EQ(schema_refused(json::parse(R"({"$ref": "#"})")), "response_format.json_schema.schema/$ref");
    EXPECT_EQ(schema_refused(json::parse(R"({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"})")),
              "response_format.json_schema.schema/$defs/a/$ref");
    json tool = kWeather;
    tool["function"]["parameters"] = {{"type", "object"}, {"properties", {{"q", {{"type", "string"}, {"pattern", "(a?){0,99999}"}}}}}};
    EXPECT_EQ(chat_refused({{"tools", json::array({tool})}, {"tool_choice", "required"}}), "tools[0].function.parameters/properties/q/pattern");
    // Repeating what can be empty is a pattern like any other now (was a 500 "left recursion").
    EXPECT_NE(chat({{"response_format", {{"type", "json_schema"}, {"json_schema", {{"name", "s"}, {"schema", {{"type", "string"}, {"pattern", "^(a*)*$"}}}}}}}}).grammar,
              nullptr);
}

TEST(ServeRequest, BadOrUnsupportedSchemasAreRefusedWithTheirPath) {
    const auto schema_refused = [](const json& schema) {
        return chat_refused({{"response_format", {{"type", "json_schema"}, {"json_schema", {{"name", "s"}, {"schema", schema}}}}}});
    };
    EXPECT_EQ(schema_refused({{"type", "object"}, {"properties", {{"a", {{"type", "frobnicate"}}}}}}).rfind("response_format.json_schema.schema/properties/a", 0), 0u);
    EXPECT_EQ(schema_refused({{"type", "object"}, {"patternProperties", {{"^x", {{"type", "string"}}}}}}).rfind("response_format.json_schema.schema", 0), 0u);
    EXPECT_EQ(chat_refused({{"response_format", {{"type", "json_schema"}}}}), "response_format.json_schema");
    EXPECT_EQ(chat_refused({{"response_format", {{"type", "xml"}}}}), "response_format.type");
    EXPECT_EQ(chat_refused({{"response_format", "json"}}), "response_format");
}

// Whether `text` is a whole answer under the request's grammar.
bool follows(const CompletionRequest& r, std::string_view text) {
    llm::grammar::Matcher m(r.grammar);
    return m.accept(text) && m.complete();
}

// The ApiError parsing `body` for `endpoint` throws (message, param, code), "" when none.
std::string refusal(Endpoint endpoint, json body) {
    if (endpoint == Endpoint::ChatCompletions && !body.contains("messages")) body["messages"] = json::array({{{"role", "user"}, {"content", "hi"}}});
    try {
        parse_request(endpoint, body, kLimits);
    } catch (const ApiError& e) {
        return fmt::format("{} | {} | {}", e.what(), e.param(), e.code());
    }
    return "";
}

// llama-server's fields: `grammar` (GBNF) and `json_schema` on both endpoints, and
// response_format json_object with a `schema`; none silently ignored.
TEST(ServeRequest, GrammarAndJsonSchemaFieldsConstrainTheAnswer) {
    const json gbnf = "root ::= (\"yes\" | \"no\") \"!\"{1,3}\n";
    for (Endpoint endpoint : {Endpoint::ChatCompletions, Endpoint::Completions}) {
        json body{{"grammar", gbnf}, {"prompt", "q"}};
        if (endpoint == Endpoint::ChatCompletions) body = {{"grammar", gbnf}, {"messages", json::array({{{"role", "user"}, {"content", "q"}}})}};
        const CompletionRequest r = parse_request(endpoint, body, kLimits);
        ASSERT_NE(r.grammar, nullptr);
        EXPECT_TRUE(follows(r, "yes!!"));
        EXPECT_FALSE(follows(r, "maybe!"));
        body.erase("grammar");
        body["json_schema"] = {{"type", "integer"}, {"minimum", 3}, {"maximum", 5}};
        const CompletionRequest s = parse_request(endpoint, body, kLimits);
        ASSERT_NE(s.grammar, nullptr);
        EXPECT_TRUE(follows(s, "4"));
        EXPECT_FALSE(follows(s, "7"));
    }
    EXPECT_EQ(chat({{"grammar", ""}}).grammar, nullptr);  // llama-server's default: no grammar
    const CompletionRequest f = chat({{"response_format", {{"type", "json_object"}, {"schema", {{"type", "array"}, {"items", {{"type", "boolean"}}}}}}}});
    EXPECT_TRUE(follows(f, "[true, false]"));
    EXPECT_FALSE(follows(f, "{}"));  // the schema, not any object
}

TEST(ServeRequest, TwoConstraintsOrABadGrammarAreA400NamingTheField) {
    const json schema{{"type", "string"}};
    EXPECT_EQ(refusal(Endpoint::Completions, {{"prompt", "x"}, {"grammar", "root ::= \"a\""}, {"json_schema", schema}}),
              "'grammar' and 'json_schema' both constrain the answer: send one of them | json_schema | conflicting_parameters");
    EXPECT_EQ(chat_refused({{"json_schema", schema}, {"response_format", {{"type", "json_object"}}}}), "response_format");
    EXPECT_EQ(chat_refused({{"grammar", "root ::= \"a\""}, {"response_format", {{"type", "json_schema"}, {"json_schema", {{"name", "s"}, {"schema", schema}}}}}}),
              "response_format");
    EXPECT_EQ(chat_refused({{"grammar", "root ::= \"a\""}, {"response_format", {{"type", "text"}}}}), "");
    EXPECT_EQ(refusal(Endpoint::ChatCompletions, {{"grammar", "root ::= item\n"}}),
              "'grammar': GBNF grammar, line 1, column 10: rule 'item' is used but never defined | grammar | invalid_grammar");
    EXPECT_EQ(chat_refused({{"grammar", "root ::= root \"a\" | \"b\""}}), "grammar");  // left recursion
    EXPECT_EQ(chat_refused({{"grammar", "root ::= \"a\"{0,99999}"}}), "grammar");
    EXPECT_EQ(chat_refused({{"grammar", 5}}), "grammar");
    EXPECT_EQ(chat_refused({{"json_schema", "string"}}), "json_schema");
    EXPECT_EQ(chat_refused({{"json_schema", {{"type", "frobnicate"}}}}), "json_schema/type");
    EXPECT_EQ(chat_refused({{"json_schema", {{"properties", {{"a", {{"type", "frobnicate"}}}}}}}}), "json_schema/properties/a/type");
    EXPECT_EQ(chat_refused({{"response_format", {{"type", "json_object"}, {"schema", {{"type", "frobnicate"}}}}}}), "response_format.schema/type");
    const json tools = json::array({{{"type", "function"}, {"function", {{"name", "f"}, {"parameters", {{"type", "object"}}}}}}});
    EXPECT_EQ(chat_refused({{"grammar", "root ::= \"a\""}, {"tools", tools}}), "grammar");
}

// OpenAI: "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got 0
// instead." (code integer_below_min_value), for 0 and negatives alike; n_predict is llama-server's.
TEST(ServeRequest, MaxTokensBelowOneIsA400) {
    EXPECT_EQ(refusal(Endpoint::ChatCompletions, {{"max_tokens", 0}}),
              "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got 0 instead. | max_tokens | integer_below_min_value");
    EXPECT_EQ(refusal(Endpoint::Completions, {{"prompt", "x"}, {"max_tokens", 0}}),
              "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got 0 instead. | max_tokens | integer_below_min_value");
    EXPECT_EQ(chat_refused({{"max_completion_tokens", -3}}), "max_completion_tokens");
    // As the server reads it: a parsed 0 is an unsigned number.
    EXPECT_EQ(refusal(Endpoint::Completions, parse_body(R"({"prompt": "x", "max_tokens": 0})")),
              "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got 0 instead. | max_tokens | integer_below_min_value");
    EXPECT_EQ(chat({{"max_tokens", 1}}).generation.max_tokens, 1);
    EXPECT_EQ(chat({{"n_predict", 0}}).generation.max_tokens, 0);
    EXPECT_EQ(chat({{"n_predict", -1}}).generation.max_tokens, -1);
}

TEST(ServeRequest, ToolsReachTheTemplateAndToolChoiceTheGrammar) {
    const json tools = json::array({kWeather});
    const CompletionRequest automatic = chat({{"tools", tools}});
    EXPECT_TRUE(automatic.parse_tool_calls);
    EXPECT_EQ(automatic.grammar, nullptr);  // the model decides
    EXPECT_EQ(automatic.chat.tools.size(), 1u);
    EXPECT_EQ(automatic.chat.tools[0]["function"]["name"], "get_weather");

    const CompletionRequest none = chat({{"tools", tools}, {"tool_choice", "none"}});
    EXPECT_FALSE(none.parse_tool_calls);
    EXPECT_EQ(none.grammar, nullptr);
    EXPECT_TRUE(none.chat.tools.is_null());  // no tools in the prompt: no call can be made

    for (const json& choice : {json("required"), json{{"type", "function"}, {"function", {{"name", "get_weather"}}}}}) {
        const CompletionRequest forced = chat({{"tools", tools}, {"tool_choice", choice}, {"parallel_tool_calls", false}});
        EXPECT_TRUE(forced.parse_tool_calls);
        EXPECT_NE(forced.grammar, nullptr) << choice;
    }
}

TEST(ServeRequest, BadToolsAndToolChoicesAreRefusedByName) {
    const json tools = json::array({kWeather});
    EXPECT_EQ(chat_refused({{"tools", json::array({{{"type", "function"}}})}}), "tools[0].function");
    EXPECT_EQ(chat_refused({{"tools", json::array({kWeather, {{"type", "retrieval"}}})}}), "tools[1].type");
    EXPECT_EQ(chat_refused({{"tool_choice", "required"}}), "tool_choice");  // no tools
    EXPECT_EQ(chat_refused({{"tools", tools}, {"tool_choice", "sometimes"}}), "tool_choice");
    EXPECT_EQ(chat_refused({{"tools", tools}, {"tool_choice", {{"type", "function"}, {"function", {{"name", "nope"}}}}}}),
              "tool_choice.function.name");
    json bad_parameters = kWeather;
    bad_parameters["function"]["parameters"]["properties"]["city"]["type"] = "place";
    EXPECT_EQ(chat_refused({{"tools", json::array({bad_parameters})}, {"tool_choice", "required"}}).rfind("tools[0].function.parameters", 0), 0u);
    EXPECT_EQ(chat_refused({{"tools", tools}, {"response_format", {{"type", "json_object"}}}}), "response_format");
    EXPECT_EQ(chat_refused({{"tools", tools}, {"tool_choice", "none"}, {"response_format", {{"type", "json_object"}}}}), "");
    EXPECT_EQ(chat_refused({{"parallel_tool_calls", "yes"}}), "parallel_tool_calls");
    EXPECT_EQ(refused_param(Endpoint::Completions, {{"prompt", "x"}, {"tools", tools}}), "tools");
}

TEST(ServeRequest, AssistantToolCallsAndToolResults) {
    const json call = {{"id", "call_7"}, {"type", "function"}, {"function", {{"name", "get_weather"}, {"arguments", "{\"city\": \"Oslo\"}"}}}};
    const CompletionRequest r = chat({{"tools", json::array({kWeather})},
                                      {"messages", json::array({{{"role", "user"}, {"content", "Weather in Oslo?"}},
                                                                {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", json::array({call})}},
                                                                {{"role", "tool"}, {"tool_call_id", "call_7"}, {"content", "{\"temp\": 3}"}}})}});
    ASSERT_EQ(r.messages.size(), 3u);
    ASSERT_EQ(r.messages[1].tool_calls.size(), 1u);
    EXPECT_EQ(r.messages[1].tool_calls[0].id, "call_7");
    EXPECT_EQ(r.messages[1].tool_calls[0].name, "get_weather");
    EXPECT_EQ(r.messages[1].tool_calls[0].arguments, "{\"city\": \"Oslo\"}");
    EXPECT_EQ(r.messages[2].tool_call_id, "call_7");

    const auto with = [](const json& message) { return chat_refused({{"messages", json::array({{{"role", "user"}, {"content", "x"}}, message})}}); };
    json broken = call;
    broken["function"]["arguments"] = "{city: Oslo";
    EXPECT_EQ(with({{"role", "assistant"}, {"tool_calls", json::array({broken})}}), "messages[1].tool_calls[0].function.arguments");
    broken = call;
    broken["function"].erase("name");
    EXPECT_EQ(with({{"role", "assistant"}, {"tool_calls", json::array({broken})}}), "messages[1].tool_calls[0].function.name");
    EXPECT_EQ(with({{"role", "assistant"}, {"tool_calls", "f()"}}), "messages[1].tool_calls");
    EXPECT_EQ(with({{"role", "user"}, {"content", "x"}, {"tool_calls", json::array({call})}}), "messages[1].tool_calls");
    EXPECT_EQ(with({{"role", "tool"}, {"content", "3"}}), "messages[1].tool_call_id");
}

TEST(ServeRequest, BadFieldsAreRefusedByName) {
    EXPECT_EQ(chat_refused({{"messages", json::array()}}), "messages");
    EXPECT_EQ(chat_refused({{"messages", json::array({{{"role", "wizard"}, {"content", "x"}}})}}), "messages[0].role");
    EXPECT_EQ(chat_refused({{"messages", json::array({{{"role", "user"}}})}}), "messages[0].content");
    EXPECT_EQ(chat_refused({{"temperature", -0.1}}), "temperature");
    EXPECT_EQ(chat_refused({{"temperature", "hot"}}), "temperature");
    EXPECT_EQ(chat_refused({{"top_p", 1.5}}), "top_p");
    EXPECT_EQ(chat_refused({{"presence_penalty", 3}}), "presence_penalty");
    EXPECT_EQ(chat_refused({{"max_tokens", -5}}), "max_tokens");
    EXPECT_EQ(chat_refused({{"stop", json::array({"a", "b", "c", "d", "e"})}}), "stop");
    EXPECT_EQ(chat_refused({{"logit_bias", {{"1000", 1}}}}), "logit_bias");  // past the vocabulary
    EXPECT_EQ(chat_refused({{"logit_bias", {{"x", 1}}}}), "logit_bias");
    EXPECT_EQ(chat_refused({{"logit_bias", {{"3", 500}}}}), "logit_bias.3");
    EXPECT_EQ(chat_refused({{"top_logprobs", 2}}), "top_logprobs");  // without logprobs
    EXPECT_EQ(chat_refused({{"stream_options", {{"include_usage", true}}}}), "stream_options");  // without stream
    EXPECT_EQ(chat_refused({{"seed", 1.5}}), "seed");
    EXPECT_EQ(refused_param(Endpoint::Completions, {{"prompt", json::array({1, 2, 1000})}}), "prompt[2]");
    EXPECT_EQ(refused_param(Endpoint::Completions, json::object()), "prompt");
}

TEST(ServeRequest, MetadataFieldsAreAccepted) {
    EXPECT_EQ(chat_refused({{"model", "gpt-4o"}, {"user", "u1"}, {"metadata", {{"k", "v"}}}, {"store", false},
                            {"service_tier", "auto"}, {"parallel_tool_calls", true}, {"unknown_extension", 1}}),
              "");
}

TEST(ServeRequest, CompletionPrompts) {
    const auto text = parse_request(Endpoint::Completions, {{"prompt", "hello"}}, kLimits);
    EXPECT_FALSE(text.prompt_is_tokens);
    EXPECT_EQ(text.prompt_text, "hello");
    const auto ids = parse_request(Endpoint::Completions, {{"prompt", json::array({1, 2, 3})}, {"logprobs", 2}}, kLimits);
    EXPECT_TRUE(ids.prompt_is_tokens);
    EXPECT_EQ(ids.prompt_tokens, (std::vector<std::int32_t>{1, 2, 3}));
    EXPECT_TRUE(ids.logprobs);
    EXPECT_EQ(ids.generation.top_logprobs, 2);
    const auto nested = parse_request(Endpoint::Completions, {{"prompt", json::array({"only one"})}}, kLimits);
    EXPECT_EQ(nested.prompt_text, "only one");
}

TEST(ServeRequest, MalformedBodies) {
    // Nested 200 000 deep (400 KB, under the 8 MiB body limit): printing it as a grammar key
    // overflowed the stack and took the server down; now a 400 before anything recurses.
    const std::string deep = R"({"messages":[{"role":"user","content":"hi"}],"response_format":)" +
                             std::string(200000, '[') + std::string(200000, ']') + "}";
    for (const std::string& text : {std::string("{"), std::string(""), std::string("[1]"), std::string("\"x\""),
                                    std::string("nul"), deep}) {
        try {
            parse_body(text);
            ADD_FAILURE() << "accepted " << text;
        } catch (const ApiError& e) {
            EXPECT_EQ(e.status(), 400);
            EXPECT_EQ(e.code(), "invalid_json");
        }
    }
}

TEST(ServeResponse, ErrorEnvelope) {
    const json body = invalid_request("bad", "messages[0].role").body();
    EXPECT_EQ(body, json::parse(R"({"error":{"message":"bad","type":"invalid_request_error","param":"messages[0].role","code":null}})"));
    EXPECT_EQ(unauthorized().status(), 401);
    EXPECT_EQ(error_body(404, "x")["error"]["type"], "not_found_error");
}

TEST(ServeResponse, ChunksCarryTheRoleFirstAndTheFinishOnce) {
    const ResponseMeta meta = new_response_meta(Endpoint::ChatCompletions, "m");
    EXPECT_EQ(meta.id.rfind("chatcmpl-", 0), 0u);
    EXPECT_EQ(meta.id.size(), 9u + 24u);
    ChunkParts parts;
    parts.first = true;
    const json first = chunk_json(meta, parts);
    EXPECT_EQ(first["object"], "chat.completion.chunk");
    EXPECT_EQ(first["choices"][0]["delta"], json::parse(R"({"role":"assistant","content":""})"));
    EXPECT_TRUE(first["choices"][0]["finish_reason"].is_null());
    parts = ChunkParts{};
    parts.text = "hé";
    parts.usage_field = true;
    const json text = chunk_json(meta, parts);
    EXPECT_EQ(text["choices"][0]["delta"], json::parse(R"({"content":"hé"})"));
    EXPECT_TRUE(text["usage"].is_null());
    parts = ChunkParts{};
    parts.finish = llm::FinishReason::MaxTokens;
    const json last = chunk_json(meta, parts);
    EXPECT_EQ(last["choices"][0]["delta"], json::object());
    EXPECT_EQ(last["choices"][0]["finish_reason"], "length");
    llm::GenerationStats stats;
    stats.prompt_tokens = 10;
    stats.cached_tokens = 4;
    stats.generated_tokens = 3;
    const json usage = usage_chunk_json(meta, stats);
    EXPECT_EQ(usage["choices"], json::array());
    EXPECT_EQ(usage["usage"], json::parse(R"({"prompt_tokens":10,"completion_tokens":3,"total_tokens":13,"prompt_tokens_details":{"cached_tokens":4}})"));
    EXPECT_EQ(sse_event(json{{"a", 1}}), "data: {\"a\":1}\n\n");
    EXPECT_EQ(sse_event(json("\xff")), "data: \"\xef\xbf\xbd\"\n\n");  // a broken byte is replaced, never thrown
}

TEST(ServeResponse, ToolCallsInTheMessageAndInDeltas) {
    const ResponseMeta meta = new_response_meta(Endpoint::ChatCompletions, "m");
    // A one-token vocabulary: the response reads none (no logprobs asked for).
    const llm::Tokenizer tokenizer(llm::Vocab(llm::VocabKind::Bpe, "", {{"a", 0.0f, llm::TokenType::Normal}}, {}, {}, false, false, false));
    const std::vector<llm::ChatToolCall> calls{{"call_x_0", "get_weather", "{\"city\": \"Oslo\"}"}};
    Answer answer;
    answer.stats.finish = llm::FinishReason::EndOfGeneration;
    answer.tool_calls = calls;
    const json whole = full_response(meta, answer, tokenizer);
    const json& choice = whole["choices"][0];
    EXPECT_EQ(choice["finish_reason"], "tool_calls");
    EXPECT_TRUE(choice["message"]["content"].is_null());
    EXPECT_EQ(choice["message"]["tool_calls"],
              json::parse(R"([{"id":"call_x_0","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Oslo\"}"}}])"));
    answer.stats.finish = llm::FinishReason::MaxTokens;  // a call cut short stays "length"
    EXPECT_EQ(full_response(meta, answer, tokenizer)["choices"][0]["finish_reason"], "length");

    const std::vector<llm::tool_calls::ToolCallDelta> deltas{{0, "call_x_0", "get_weather", ""}, {0, "", "", "{\"city\""}};
    ChunkParts parts;
    parts.tool_calls = deltas;
    EXPECT_EQ(chunk_json(meta, parts)["choices"][0]["delta"],
              json::parse(R"({"tool_calls":[{"index":0,"id":"call_x_0","type":"function","function":{"name":"get_weather","arguments":""}},
                                            {"index":0,"function":{"arguments":"{\"city\""}}]})"));
    parts = ChunkParts{};
    parts.finish = llm::FinishReason::EndOfGeneration;
    parts.made_calls = true;
    EXPECT_EQ(chunk_json(meta, parts)["choices"][0]["finish_reason"], "tool_calls");
}

TEST(ServeResponse, CompletionShapes) {
    const ResponseMeta meta = new_response_meta(Endpoint::Completions, "m");
    EXPECT_EQ(meta.id.rfind("cmpl-", 0), 0u);
    ChunkParts parts;
    parts.text = "abc";
    const json chunk = chunk_json(meta, parts);
    EXPECT_EQ(chunk["object"], "text_completion");
    EXPECT_EQ(chunk["choices"][0]["text"], "abc");
    EXPECT_FALSE(chunk["choices"][0].contains("delta"));
}

TEST(ServeMetrics, PrometheusText) {
    Metrics metrics;
    llm::GenerationStats stats;
    stats.prompt_tokens = 12;
    stats.cached_tokens = 2;
    stats.generated_tokens = 5;
    stats.generate_s = 0.5;
    metrics.record_finished(stats);
    stats.finish = llm::FinishReason::Cancelled;
    metrics.record_finished(stats);
    metrics.record_rejected();
    Load load;
    load.running = 1;
    load.queued = 3;
    load.slots = 4;
    const std::string text = metrics.prometheus(load);
    EXPECT_NE(text.find("# TYPE forge_prompt_tokens_total counter\nforge_prompt_tokens_total 20\n"), std::string::npos) << text;
    EXPECT_NE(text.find("forge_tokens_predicted_total 10\n"), std::string::npos);
    EXPECT_NE(text.find("forge_tokens_predicted_seconds_total 1\n"), std::string::npos);
    EXPECT_NE(text.find("forge_requests_cancelled_total 1\n"), std::string::npos);
    EXPECT_NE(text.find("forge_requests_rejected_total 1\n"), std::string::npos);
    EXPECT_NE(text.find("forge_requests_deferred 3\n"), std::string::npos);
    EXPECT_NE(text.find("forge_slots_busy 1\n"), std::string::npos);
    EXPECT_NE(text.find("forge_slots_total 4\n"), std::string::npos);
    EXPECT_NE(text.find("forge_draft_acceptance_ratio 0\n"), std::string::npos);
}

// A many-model server: each loaded model's load under its own label, names escaped as the
// text format asks; an embedding model has no slots.
TEST(ServeMetrics, EachLoadedModelHasItsLabel) {
    Load load;
    load.models.push_back({"qwen3-0.6b", {2, 5, 4}});
    load.models.push_back({"bge \"small\"", {}});
    const std::string text = Metrics().prometheus(load);
    EXPECT_NE(text.find("forge_models_loaded 2\n"), std::string::npos) << text;
    EXPECT_NE(text.find("# TYPE forge_model_requests_processing gauge\nforge_model_requests_processing{model=\"qwen3-0.6b\"} 2\n"),
              std::string::npos);
    EXPECT_NE(text.find("forge_model_requests_deferred{model=\"qwen3-0.6b\"} 5\n"), std::string::npos);
    EXPECT_NE(text.find("forge_model_slots_total{model=\"qwen3-0.6b\"} 4\n"), std::string::npos);
    EXPECT_NE(text.find("forge_model_slots_total{model=\"bge \\\"small\\\"\"} 0\n"), std::string::npos);
}

TEST(ServeMetrics, DraftAcceptance) {
    Metrics metrics;
    llm::GenerationStats stats;
    stats.drafted_tokens = 40;
    stats.accepted_tokens = 30;
    metrics.record_finished(stats);
    const std::string text = metrics.prometheus(Load{});
    EXPECT_NE(text.find("forge_draft_tokens_total 40\n"), std::string::npos) << text;
    EXPECT_NE(text.find("forge_draft_tokens_accepted_total 30\n"), std::string::npos);
    EXPECT_NE(text.find("forge_draft_acceptance_ratio 0.75\n"), std::string::npos);
}

// llama-server's timings; the draft counts only when speculative decoding drafted.
TEST(ServeResponse, TimingsCarryTheDraftCounts) {
    llm::GenerationStats stats;
    stats.prompt_tokens = 12;
    stats.cached_tokens = 2;
    stats.prompt_s = 0.5;
    stats.generated_tokens = 8;
    stats.generate_s = 2.0;
    json timings = timings_json(stats);
    EXPECT_EQ(timings["prompt_n"], 10);
    EXPECT_DOUBLE_EQ(timings["prompt_per_second"].get<double>(), 20.0);
    EXPECT_EQ(timings["predicted_n"], 8);
    EXPECT_DOUBLE_EQ(timings["predicted_per_token_ms"].get<double>(), 250.0);
    EXPECT_FALSE(timings.contains("draft_n"));
    stats.drafted_tokens = 6;
    stats.accepted_tokens = 4;
    timings = timings_json(stats);
    EXPECT_EQ(timings["draft_n"], 6);
    EXPECT_EQ(timings["draft_n_accepted"], 4);
    const ResponseMeta meta = new_response_meta(Endpoint::Completions, "m");
    EXPECT_EQ(usage_chunk_json(meta, stats)["timings"], timings);
}

}  // namespace
}  // namespace forge::app::serve
