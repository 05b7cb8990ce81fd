// OpenAI's Responses API (POST /v1/responses, GET and DELETE /v1/responses/{id}) as a
// translation: the body becomes the body /v1/chat/completions takes (one parse, one generation,
// the same tool calls and grammars), and the answer is written as the Responses API's output
// items and typed stream events.
//
//   input (string, or items: messages, function_call, function_call_output), instructions
//       -> messages (instructions first, as a system message)
//   tools [{type: "function", name, parameters}] -> tools [{type: "function", function: {...}}]
//   tool_choice {type: "function", name}         -> {type: "function", function: {name}}
//   text.format {type: "json_schema", schema}    -> response_format {type: "json_schema", json_schema: {schema}}
//   max_output_tokens                            -> max_tokens
//
// A thinking model's reasoning (models/llm/answer_splitter.h; not with --reasoning-format
// none) is a "reasoning" output item before the message, its text as reasoning_text content,
// streamed as response.reasoning_text.delta / .done. Sent back (or stored, for
// previous_response_id), a reasoning item is its assistant turn's reasoning_content for the
// template.
//
// previous_response_id continues a stored response's conversation (its input and output, not
// its instructions, as OpenAI does). Responses are stored (store: true, the default) in memory
// for the server's lifetime, at most kMaxStoredResponses and kMaxStoredBytes of them, the least
// recently used dropped first.
#pragma once

#include "app/serve/api_error.h"
#include "app/serve/stream_writer.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace forge::app::serve {

inline constexpr std::size_t kMaxStoredResponses = 1000;
inline constexpr std::size_t kMaxStoredBytes = std::size_t{64} << 20;

// A stored response: the conversation it ends (chat-shaped messages, its output last) and
// the response object GET /v1/responses/{id} returns.
struct StoredResponse {
    nlohmann::ordered_json conversation;
    nlohmann::json response;
};

// Thread-safe, bounded, least recently used first out.
class ResponseStore {
public:
    void put(const std::string& id, StoredResponse response);
    std::optional<StoredResponse> get(const std::string& id);
    bool erase(const std::string& id);

private:
    struct Entry {
        std::string id;
        StoredResponse response;
        std::size_t bytes = 0;
    };
    std::mutex mutex_;
    std::list<Entry> entries_;  // most recently used first
    std::unordered_map<std::string, std::list<Entry>::iterator> by_id_;
    std::size_t bytes_ = 0;
};

// A Responses request, translated.
struct ResponsesRequest {
    nlohmann::ordered_json chat_body;     // what /v1/chat/completions would take
    nlohmann::ordered_json conversation;  // the messages without the instructions (stored with the output)
    nlohmann::json echo;                  // the request's settings the response object repeats
    bool stream = false;
    bool store = true;
};

// Throws ApiError (400) naming the Responses field; `store` resolves previous_response_id.
ResponsesRequest translate_responses_request(const nlohmann::ordered_json& body, ResponseStore& store);
// A chat parse's error in the Responses API's field names.
ApiError in_responses_terms(const ApiError& error);

// The response object and its typed events (response.created ... response.completed, each
// with its sequence_number). `on_done` gets the finished response and the assistant's turn as
// a chat message (to store it).
struct ResponseIdentity {
    std::string id;  // resp_...
    std::int64_t created_at = 0;
    std::string model;
};
using ResponseDone = std::function<void(const nlohmann::json& response, const nlohmann::ordered_json& assistant_message)>;

class ResponseWriter final : public StreamEvents {
public:
    ResponseWriter(ResponseIdentity identity, nlohmann::json echo, ResponseDone on_done);

    std::string begin() override;
    std::string pieces(const llm::AnswerPiece& parsed, std::span<const llm::TokenLogprob> logprobs) override;
    std::string finish(const llm::RequestResult& result, bool made_calls) override;
    std::string failure(const ApiError& error) override;

    // The response object so far (after finish(): the final one).
    const nlohmann::json& response() const { return response_; }

private:
    std::string event(const std::string& type, nlohmann::json data);
    std::string open_text_item(nlohmann::json item, nlohmann::json part);
    std::string open_message();
    std::string open_reasoning();
    std::string open_call(const llm::tool_calls::ToolCallDelta& delta);
    std::string close_item(const char* status);

    nlohmann::json response_;  // status, output items, usage as they become known
    ResponseDone on_done_;
    std::int64_t sequence_ = 0;
    std::optional<std::size_t> open_;  // the output item being written
    std::string text_;                 // the whole text, for the stored conversation
    std::string reasoning_;            // the whole reasoning, the same
    nlohmann::ordered_json calls_ = nlohmann::ordered_json::array();
};

}  // namespace forge::app::serve
