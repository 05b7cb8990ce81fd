// Ollama's request bodies translated into forge's CompletionRequest, without a server: Ollama's
// shapes (tool_calls with object arguments, tool_name, options, format, grammar, think, generate's
// system / raw / context) land where the OpenAI routes put the same things, and every field
// forge cannot honour is a 400 naming it by Ollama's name. Ollama's answer shapes too.
#include "app/serve/api_error.h"
#include "app/serve/ollama_request.h"
#include "app/serve/ollama_response.h"

#include <gtest/gtest.h>

namespace forge::app::serve {
namespace {

using json = nlohmann::ordered_json;

const RequestLimits kLimits{1000, 64};

const json kQuestion = json::array({{{"role", "user"}, {"content", "hi"}}});

OllamaRequest chat(json body) {
    if (!body.contains("messages")) body["messages"] = kQuestion;
    return parse_ollama_request(OllamaEndpoint::Chat, body, kLimits);
}

OllamaRequest generate(json body) {
    if (!body.contains("prompt")) body["prompt"] = "hi";
    return parse_ollama_request(OllamaEndpoint::Generate, body, kLimits);
}

// The ApiError that parsing `body` throws: "param: message" ("" when none is thrown).
std::string refused(OllamaEndpoint endpoint, json body) {
    if (endpoint == OllamaEndpoint::Chat && !body.contains("messages")) body["messages"] = kQuestion;
    if (endpoint == OllamaEndpoint::Generate && !body.contains("prompt")) body["prompt"] = "hi";
    try {
        parse_ollama_request(endpoint, body, kLimits);
    } catch (const ApiError& e) {
        EXPECT_EQ(e.status(), 400);
        return e.param() + ": " + e.what();
    }
    return "";
}

TEST(OllamaRequest, StreamsByDefault) {
    EXPECT_TRUE(chat({}).completion.stream);
    EXPECT_FALSE(chat({{"stream", false}}).completion.stream);
    EXPECT_EQ(chat({}).completion.endpoint, Endpoint::ChatCompletions);
    EXPECT_EQ(chat({}).completion.generation.max_tokens, 64);  // --n-predict
}

TEST(OllamaRequest, OptionsReachTheSampler) {
    const OllamaRequest r = chat({{"options", {{"temperature", 0.5}, {"top_p", 0.9}, {"top_k", 7.0}, {"min_p", 0.1}, {"seed", 42},
                                               {"repeat_penalty", 1.1}, {"presence_penalty", 0.5}, {"frequency_penalty", -0.5},
                                               {"num_predict", 10}, {"stop", {"a", "b", "c", "d", "e"}}, {"num_ctx", 100},
                                               {"mirostat", 2}, {"num_gpu", nullptr}}}});
    const llm::SamplerOptions& s = r.completion.generation.sampling;
    EXPECT_FLOAT_EQ(s.temperature, 0.5f);
    EXPECT_FLOAT_EQ(s.top_p, 0.9f);
    EXPECT_EQ(s.top_k, 7);  // 7.0: Go reads numbers as floats and truncates them into integer options
    EXPECT_FLOAT_EQ(s.min_p, 0.1f);
    EXPECT_EQ(s.seed, 42u);
    EXPECT_FLOAT_EQ(s.repeat_penalty, 1.1f);
    EXPECT_FLOAT_EQ(s.presence_penalty, 0.5f);
    EXPECT_FLOAT_EQ(s.frequency_penalty, -0.5f);
    EXPECT_EQ(r.completion.generation.max_tokens, 10);
    EXPECT_EQ(r.completion.generation.stop, (std::vector<std::string>{"a", "b", "c", "d", "e"}));  // no limit of 4
    EXPECT_EQ(r.num_ctx, 100);
    EXPECT_EQ(chat({{"options", {{"num_predict", -2}}}}).completion.generation.max_tokens, -1);
    EXPECT_EQ(chat({{"options", {{"num_predict", 0}}}}).completion.generation.max_tokens, 64);  // Ollama's unset
}

TEST(OllamaRequest, MessagesInOllamasShape) {
    const json messages = json::array(
        {{{"role", "SYSTEM"}, {"content", "be brief"}},
         {{"role", "user"}, {"content", "weather?"}, {"images", json::array()}},
         {{"role", "assistant"}, {"content", ""}, {"thinking", "hmm"},
          {"tool_calls", json::array({{{"function", {{"name", "get_weather"}, {"arguments", {{"city", "Oslo"}, {"n", 1}}}}}}})}},
         {{"role", "tool"}, {"content", "3 C"}, {"tool_name", "get_weather"}},
         {{"role", "tool"}, {"content", "4 C"}, {"tool_name", "get_weather"}, {"tool_call_id", "call_7"}},
         {{"role", "assistant"}, {"content", ""},
          {"tool_calls", json::array({{{"id", "call_x_0"}, {"function", {{"name", "f"}}}}, {{"id", "call_x_1"}, {"function", {{"name", "g"}}}}})}},
         {{"role", "tool"}, {"content", "g's"}, {"tool_name", "g"}},
         {{"role", "tool"}, {"content", "f's"}, {"tool_name", "f"}}});
    const OllamaRequest r = chat({{"messages", messages}});
    const std::vector<llm::ChatMessage>& m = r.completion.messages;
    ASSERT_EQ(m.size(), 8u);
    EXPECT_EQ(m[6].tool_call_id, "call_x_1");  // the id of the call of that tool, as forge returned it
    EXPECT_EQ(m[7].tool_call_id, "call_x_0");
    EXPECT_EQ(m[0].role, "system");  // Ollama lowercases roles
    EXPECT_EQ(m[2].reasoning_content, "hmm");
    ASSERT_EQ(m[2].tool_calls.size(), 1u);
    EXPECT_EQ(m[2].tool_calls[0].name, "get_weather");
    EXPECT_EQ(json::parse(m[2].tool_calls[0].arguments), json({{"city", "Oslo"}, {"n", 1}}));
    EXPECT_EQ(m[3].name, "get_weather");
    EXPECT_EQ(m[3].tool_call_id, "get_weather");  // no id: the tool's name stands for it
    EXPECT_EQ(m[4].tool_call_id, "call_7");
}

TEST(OllamaRequest, ToolsFormatThink) {
    const json tool = {{"type", "function"},
                       {"function", {{"name", "f"}, {"parameters", {{"type", "object"}, {"properties", {{"x", {{"type", "integer"}}}}}}}}}};
    const OllamaRequest tools = chat({{"tools", json::array({tool})}});
    EXPECT_TRUE(tools.completion.parse_tool_calls);
    EXPECT_EQ(tools.completion.grammar, nullptr);  // the model decides, as Ollama's
    EXPECT_NE(chat({{"tools", json::array({tool})}, {"tool_choice", "required"}}).completion.grammar, nullptr);  // forge's extension
    EXPECT_NE(chat({{"format", "json"}}).completion.grammar, nullptr);
    EXPECT_NE(chat({{"format", {{"type", "object"}}}}).completion.grammar, nullptr);
    EXPECT_EQ(chat({{"format", ""}}).completion.grammar, nullptr);
    EXPECT_NE(chat({{"grammar", "root ::= \"a\""}}).completion.grammar, nullptr);  // llama-server's field, forge's extension
    EXPECT_NE(generate({{"raw", true}, {"grammar", "root ::= \"a\""}}).completion.grammar, nullptr);
    EXPECT_NE(chat({{"grammar", ""}, {"format", "json"}}).completion.grammar, nullptr);  // "": no grammar, the format's
    EXPECT_EQ(chat({{"think", true}}).completion.chat.enable_thinking, true);
    EXPECT_EQ(chat({{"think", false}}).completion.chat.enable_thinking, false);
    EXPECT_FALSE(chat({}).completion.chat.enable_thinking.has_value());
    EXPECT_EQ(chat({{"keep_alive", "5m"}}).completion.stream, true);
    EXPECT_EQ(chat({{"keep_alive", 0}}).completion.stream, true);
}

TEST(OllamaRequest, Generate) {
    const OllamaRequest turn = generate({{"system", "be brief"}, {"prompt", "hi"}});
    EXPECT_EQ(turn.completion.endpoint, Endpoint::ChatCompletions);
    ASSERT_EQ(turn.completion.messages.size(), 2u);
    EXPECT_EQ(turn.completion.messages[0].role, "system");
    EXPECT_EQ(turn.completion.messages[1].content, "hi");
    const OllamaRequest raw = generate({{"prompt", "Once"}, {"raw", true}, {"system", "ignored when raw"}, {"context", {1, 2, 999}}});
    EXPECT_EQ(raw.completion.endpoint, Endpoint::Completions);
    EXPECT_EQ(raw.completion.prompt_text, "Once");
    EXPECT_EQ(raw.context, (std::vector<std::int32_t>{1, 2, 999}));
    EXPECT_NE(generate({{"raw", true}, {"format", "json"}}).completion.grammar, nullptr);
    EXPECT_TRUE(generate({{"prompt", ""}}).load_only);
    EXPECT_TRUE(chat({{"messages", json::array()}}).load_only);
    EXPECT_EQ(ollama_model_name({{"model", "qwen3:latest"}}), "qwen3:latest");
}

TEST(OllamaRequest, RefusedByOllamasNames) {
    const auto chat_refused = [](json body) { return refused(OllamaEndpoint::Chat, std::move(body)); };
    const auto generate_refused = [](json body) { return refused(OllamaEndpoint::Generate, std::move(body)); };
    EXPECT_EQ(chat_refused({{"options", {{"temperature", "hot"}}}}), "options.temperature: 'options.temperature' must be a number");
    EXPECT_EQ(chat_refused({{"options", {{"num_predict", 1.5}}}}), "options.num_predict: 'options.num_predict' must be an integer");
    EXPECT_EQ(chat_refused({{"options", {{"seed", 1e30}}}}), "options.seed: 'options.seed' must be an integer");
    EXPECT_EQ(chat_refused({{"options", {{"top_k", -5}}}}).substr(0, 13), "options.top_k");
    EXPECT_EQ(chat_refused({{"options", {{"num_ctx", 0}}}}), "options.num_ctx: 'options.num_ctx' must be a positive integer");
    EXPECT_EQ(chat_refused({{"options", {{"stop", {"a", 1}}}}}), "options.stop[1]: 'options.stop[1]' must be a string");
    EXPECT_EQ(chat_refused({{"options", 3}}), "options: 'options' must be an object");
    EXPECT_EQ(chat_refused({{"messages", json::array({{{"role", "user"}, {"content", "x"}, {"images", {"AAAA"}}}})}}).substr(0, 18),
              "messages[0].images");
    EXPECT_EQ(chat_refused({{"messages", json::array({{{"role", "user"}, {"content", 5}}})}}),
              "messages[0].content: 'messages[0].content' must be a string");
    EXPECT_EQ(chat_refused({{"messages", json::array({{{"role", "tool"}, {"content", "x"}, {"tool_name", 3}}})}}).substr(0, 21),
              "messages[0].tool_name");
    EXPECT_EQ(chat_refused({{"messages", "hi"}}), "messages: 'messages' must be an array of messages");
    EXPECT_EQ(chat_refused({{"format", "yaml"}}), "format: 'format' must be \"json\" or a JSON schema (an object)");
    EXPECT_EQ(chat_refused({{"format", {{"type", "object"}, {"properties", {{"a", {{"type", "wat"}}}}}}}}).substr(0, 24),
              "format/properties/a/type");
    EXPECT_EQ(chat_refused({{"grammar", "root ::= \"a\""}, {"format", "json"}}),
              "format: 'format' and 'grammar' both constrain the answer: send one of them");
    EXPECT_EQ(chat_refused({{"grammar", "root ::= undefined-rule"}}).substr(0, 9), "grammar: ");
    EXPECT_EQ(chat_refused({{"grammar", 3}}).substr(0, 9), "grammar: ");
    EXPECT_EQ(chat_refused({{"think", "high"}}).substr(0, 5), "think");
    EXPECT_EQ(chat_refused({{"think", 1}}), "think: 'think' must be a boolean");
    EXPECT_EQ(chat_refused({{"keep_alive", json::array()}}).substr(0, 10), "keep_alive");
    EXPECT_EQ(chat_refused({{"stream", "yes"}}), "stream: 'stream' must be a boolean");
    EXPECT_EQ(generate_refused({{"suffix", "end"}}).substr(0, 6), "suffix");
    EXPECT_EQ(generate_refused({{"template", "{{ .Prompt }}"}}).substr(0, 8), "template");
    EXPECT_EQ(generate_refused({{"images", {"AAAA"}}}).substr(0, 6), "images");
    EXPECT_EQ(generate_refused({{"context", {1, 1000}}}), "context: 'context[1]' must be a token id of this model (0 to 999)");
    EXPECT_EQ(generate_refused({{"prompt", 5}}), "prompt: 'prompt' must be a string");
    EXPECT_EQ(generate_refused({{"raw", "yes"}}), "raw: 'raw' must be a boolean");
    EXPECT_EQ(generate_refused({{"suffix", ""}, {"template", ""}, {"images", nullptr}}), "");  // empty: nothing asked
    try {
        ollama_model_name({{"messages", kQuestion}});
        ADD_FAILURE() << "no model accepted";
    } catch (const ApiError& e) {
        EXPECT_STREQ(e.what(), "model is required");
    }
}

TEST(OllamaResponse, Shapes) {
    const OllamaMeta chat_meta{OllamaEndpoint::Chat, "qwen3:latest"};
    const std::vector<llm::ChatToolCall> calls = {{"call_a_0", "f", "{\"x\": 1}"}, {"call_a_1", "g", "not json"}};
    const json chunk = ollama_chunk(chat_meta, {"", "Hel", std::span(calls).subspan(1), 1});
    EXPECT_EQ(chunk["model"], "qwen3:latest");
    EXPECT_EQ(chunk["done"], false);
    EXPECT_EQ(chunk["message"]["content"], "Hel");
    EXPECT_FALSE(chunk["message"].contains("thinking"));
    EXPECT_EQ(chunk["message"]["tool_calls"][0]["function"]["index"], 1);
    EXPECT_EQ(chunk["message"]["tool_calls"][0]["function"]["arguments"], "not json");  // kept as the model wrote it
    EXPECT_EQ(std::string(chunk["created_at"]).back(), 'Z');

    llm::GenerationStats stats;
    stats.prompt_tokens = 12;
    stats.generated_tokens = 5;
    stats.prompt_s = 0.25;
    stats.generate_s = 1.5;
    stats.finish = llm::FinishReason::MaxTokens;
    const std::vector<std::int32_t> context = {1, 2, 3};
    const json done = ollama_done({OllamaEndpoint::Generate, "m"}, {"why", "Hello", calls, 0}, stats, {0.125, 2.0}, &context);
    EXPECT_EQ(done["response"], "Hello");
    EXPECT_EQ(done["thinking"], "why");
    EXPECT_EQ(done["done"], true);
    EXPECT_EQ(done["done_reason"], "length");
    EXPECT_EQ(done["context"], json({1, 2, 3}));
    EXPECT_EQ(done["total_duration"], 2'000'000'000);
    EXPECT_EQ(done["load_duration"], 125'000'000);
    EXPECT_EQ(done["prompt_eval_count"], 12);
    EXPECT_EQ(done["prompt_eval_duration"], 250'000'000);
    EXPECT_EQ(done["eval_count"], 5);
    EXPECT_EQ(done["eval_duration"], 1'500'000'000);
    const json with_calls = ollama_done(chat_meta, {"", "", calls, 0}, stats, {}, nullptr);
    EXPECT_EQ(with_calls["message"]["tool_calls"][0], json({{"id", "call_a_0"}, {"function", {{"index", 0}, {"name", "f"}, {"arguments", {{"x", 1}}}}}}));
    EXPECT_FALSE(with_calls.contains("context"));
    EXPECT_EQ(ollama_loaded(chat_meta)["done_reason"], "load");
    EXPECT_EQ(ollama_error("model 'x' not found"), json({{"error", "model 'x' not found"}}));
}

}  // namespace
}  // namespace forge::app::serve
