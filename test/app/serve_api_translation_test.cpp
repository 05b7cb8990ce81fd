// The Responses and Anthropic Messages APIs as translations into the chat request, without a
// server: the chat body each request becomes, the errors in the client's field names, and the
// bound of the store behind previous_response_id.
#include "app/serve/anthropic_api.h"
#include "app/serve/openai_request.h"
#include "app/serve/responses_api.h"

#include <gtest/gtest.h>

namespace forge::app::serve {
namespace {

using ordered = nlohmann::ordered_json;

const RequestLimits kLimits{1000, 64};

StoredResponse stored(const std::string& text) { return {ordered::array({{{"role", "user"}, {"content", text}}}), {{"id", "resp"}}}; }

TEST(ResponseStore, KeepsAtMostTheBoundDroppingTheLeastRecentlyUsed) {
    ResponseStore store;
    store.put("first", stored("a"));
    store.put("second", stored("b"));
    for (std::size_t i = 0; i < kMaxStoredResponses - 2; ++i) store.put(std::to_string(i), stored("x"));
    ASSERT_TRUE(store.get("first"));  // used: now the most recent
    store.put("one more", stored("c"));
    EXPECT_TRUE(store.get("first"));
    EXPECT_FALSE(store.get("second"));  // the least recently used went
    EXPECT_TRUE(store.get("one more"));
    EXPECT_TRUE(store.erase("one more"));
    EXPECT_FALSE(store.get("one more"));
}

TEST(ResponseStore, KeepsAtMostTheByteBound) {
    ResponseStore store;
    const std::string big(kMaxStoredBytes / 3, 'x');
    for (const char* id : {"a", "b", "c"}) store.put(id, stored(big));
    EXPECT_FALSE(store.get("a"));  // three thirds and their JSON are over the bound
    EXPECT_TRUE(store.get("b"));
    EXPECT_TRUE(store.get("c"));
}

TEST(ResponsesRequest, BecomesTheChatBody) {
    ResponseStore store;
    const ordered body = {
        {"instructions", "Be brief."},
        {"input", ordered::array({{{"role", "developer"}, {"content", "Rule."}},
                                  {{"role", "user"}, {"content", ordered::array({{{"type", "input_text"}, {"text", "Hi "}},
                                                                                 {{"type", "input_text"}, {"text", "there"}}})}},
                                  {{"type", "function_call"}, {"call_id", "c1"}, {"name", "f"}, {"arguments", "{}"}},
                                  {{"type", "function_call_output"}, {"call_id", "c1"}, {"output", "3"}}})},
        {"max_output_tokens", 7},
        {"tools", ordered::array({{{"type", "function"}, {"name", "f"}, {"parameters", {{"type", "object"}}}}})},
        {"tool_choice", {{"type", "function"}, {"name", "f"}}},
        {"text", {{"format", {{"type", "json_schema"}, {"name", "s"}, {"schema", {{"type", "object"}}}}}}},
        {"temperature", 0}};
    const ResponsesRequest r = translate_responses_request(body, store);
    const ordered& chat = r.chat_body;
    EXPECT_EQ(chat["messages"], ordered::parse(R"([{"role": "system", "content": "Be brief."}, {"role": "system", "content": "Rule."},
        {"role": "user", "content": "Hi there"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "3"}])"));
    EXPECT_EQ(r.conversation.size(), 4u);  // without the instructions
    EXPECT_EQ(chat["max_tokens"], 7);
    EXPECT_EQ(chat["tools"][0]["function"]["name"], "f");
    EXPECT_EQ(chat["tool_choice"], ordered::parse(R"({"type": "function", "function": {"name": "f"}})"));
    EXPECT_EQ(chat["response_format"]["json_schema"]["schema"], ordered::parse(R"({"type": "object"})"));
    EXPECT_EQ(chat["temperature"], 0);
    EXPECT_TRUE(r.store);
}

TEST(ResponsesRequest, ContinuesAStoredConversation) {
    ResponseStore store;
    store.put("resp_1", stored("before"));
    const ResponsesRequest r = translate_responses_request({{"previous_response_id", "resp_1"}, {"input", "after"}}, store);
    ASSERT_EQ(r.chat_body["messages"].size(), 2u);
    EXPECT_EQ(r.chat_body["messages"][0]["content"], "before");
    EXPECT_EQ(r.chat_body["messages"][1]["content"], "after");
    try {
        translate_responses_request({{"previous_response_id", "resp_2"}, {"input", "x"}}, store);
        FAIL() << "an unknown id was taken";
    } catch (const ApiError& e) {
        EXPECT_EQ(e.status(), 400);
        EXPECT_EQ(e.param(), "previous_response_id");
        EXPECT_EQ(e.code(), "previous_response_not_found");
    }
}

// The param of the error a chat parse of the translated body throws, in the client's terms.
std::string responses_param(const ordered& body) {
    ResponseStore store;
    try {
        parse_request(Endpoint::ChatCompletions, translate_responses_request(body, store).chat_body, kLimits);
    } catch (const ApiError& e) {
        return in_responses_terms(e).param();
    }
    return "";
}

std::string anthropic_param(const ordered& body) {
    try {
        parse_request(Endpoint::ChatCompletions, translate_messages_request(body), kLimits);
    } catch (const ApiError& e) {
        return in_anthropic_terms(e).param();
    }
    return "";
}

TEST(Translations, ChatErrorsNameTheClientsFields) {
    EXPECT_EQ(responses_param({{"input", "x"}, {"top_p", 2}}), "top_p");
    EXPECT_EQ(responses_param({{"input", "x"}, {"tools", ordered::array({{{"type", "function"}, {"name", "f"}, {"parameters", 3}}})},
                               {"tool_choice", "required"}}).substr(0, 19),
              "tools[0].parameters");
    EXPECT_EQ(responses_param({{"input", "x"}, {"text", {{"format", {{"type", "json_schema"}, {"schema", {{"type", "thing"}}}}}}}}).substr(0, 18),
              "text.format.schema");
    const ordered hi = ordered::array({{{"role", "user"}, {"content", "hi"}}});
    EXPECT_EQ(anthropic_param({{"messages", hi}, {"stop_sequences", ordered::array({1})}}), "stop_sequences[0]");
    EXPECT_EQ(anthropic_param({{"messages", hi}, {"top_k", "many"}}), "top_k");
    EXPECT_EQ(anthropic_param({{"messages", hi}, {"tools", ordered::array({{{"name", "f"}, {"input_schema", 3}}})}, {"tool_choice", {{"type", "any"}}}})
                  .substr(0, 21),
              "tools[0].input_schema");
}

TEST(MessagesRequest, ToolResultsComeBeforeTheUsersTextAndCallsJoinTheAssistant) {
    const ordered body = ordered::parse(R"({"system": [{"type": "text", "text": "Be "}, {"type": "text", "text": "brief."}],
        "messages": [{"role": "user", "content": "Weather?"},
                     {"role": "assistant", "content": [{"type": "text", "text": "Let me look."},
                                                       {"type": "tool_use", "id": "t1", "name": "w", "input": {"city": "Oslo"}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "rain"}]},
                                                  {"type": "text", "text": "Thanks."}]}],
        "tool_choice": {"type": "tool", "name": "w", "disable_parallel_tool_use": true}, "stop_sequences": ["END"]})");
    const ordered chat = translate_messages_request(body);
    EXPECT_EQ(chat["messages"], ordered::parse(R"([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": "Let me look.",
         "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "w", "arguments": "{\"city\":\"Oslo\"}"}}]},
        {"role": "tool", "tool_call_id": "t1", "content": "rain"}, {"role": "user", "content": "Thanks."}])"));
    EXPECT_EQ(chat["max_tokens"], kAnthropicDefaultMaxTokens);
    EXPECT_EQ(chat["tool_choice"], ordered::parse(R"({"type": "function", "function": {"name": "w"}})"));
    EXPECT_EQ(chat["parallel_tool_calls"], false);
    EXPECT_EQ(chat["stop"], ordered::array({"END"}));
    EXPECT_FALSE(translate_messages_request(body, true).contains("max_tokens"));
}

TEST(MessagesRequest, ErrorsUseAnthropicsEnvelope) {
    const auto body = anthropic_error_body(invalid_request("'max_tokens' must be an integer of at least 1", "max_tokens"));
    EXPECT_EQ(body["type"], "error");
    EXPECT_EQ(body["error"]["type"], "invalid_request_error");
    EXPECT_EQ(anthropic_error_body(unavailable("busy"))["error"]["type"], "overloaded_error");
    EXPECT_EQ(anthropic_error_body(unauthorized())["error"]["type"], "authentication_error");
}

}  // namespace
}  // namespace forge::app::serve
