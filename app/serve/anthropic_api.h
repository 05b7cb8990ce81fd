// Anthropic's Messages API (POST /v1/messages, POST /v1/messages/count_tokens), as
// llama-server serves it: a translation into the body /v1/chat/completions takes (one parse,
// one generation, the same tool calls), and of the answer into Anthropic's message and event
// stream.
//
//   system (string or text blocks)               -> a system message first
//   messages[].content blocks: text, tool_use,   -> content, an assistant's tool_calls, role
//     tool_result                                   "tool" messages (before the user's text)
//   tools [{name, description, input_schema}]    -> tools [{type: "function", function: {...}}]
//   tool_choice auto / any / tool / none         -> auto / required / a named function / none
//   stop_sequences, max_tokens (optional: 4096 when absent, as llama-server), temperature,
//   top_p, top_k                                 -> the same chat fields
//   thinking {type: enabled / adaptive / disabled} -> chat_template_kwargs.enable_thinking
//
// A thinking model's reasoning (models/llm/answer_splitter.h; not with --reasoning-format
// none) comes back as a "thinking" block before the text, streamed as thinking_delta events and
// an empty signature_delta (forge signs nothing). Thinking blocks sent back are their assistant
// turn's reasoning_content for the template. thinking.type "disabled" leaves the text as the
// model wrote it, like --reasoning-format none; display "omitted" sends the block without its
// text.
//
// Errors on these routes use Anthropic's envelope {"type": "error", "error": {type, message}}.
#pragma once

#include "app/serve/api_error.h"
#include "app/serve/stream_writer.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace forge::app::serve {

// The prefix of the routes whose errors use Anthropic's envelope (json_reply.h).
inline constexpr std::string_view kAnthropicRoutes = "/v1/messages";

// max_tokens when the request has none (llama-server's default for this route).
inline constexpr std::int64_t kAnthropicDefaultMaxTokens = 4096;

// How the request's `thinking` wants the model's reasoning (absent: Shown, as llama-server).
enum class ThinkingDisplay {
    Shown,     // thinking blocks with the reasoning text
    Omitted,   // thinking blocks without their text (display: "omitted")
    Disabled,  // no split: whatever the model writes is text
};
// Throws ApiError (400) naming the field of a bad `thinking`.
ThinkingDisplay thinking_display(const nlohmann::ordered_json& body);

// The chat body of a Messages request. Throws ApiError (400) naming the Anthropic field.
// `count_only`: /v1/messages/count_tokens, which has no max_tokens.
nlohmann::ordered_json translate_messages_request(const nlohmann::ordered_json& body, bool count_only = false);
// A chat parse's error in the Messages API's field names.
ApiError in_anthropic_terms(const ApiError& error);
// {"type": "error", "error": {"type": ..., "message": ...}} with Anthropic's type for the status.
nlohmann::json anthropic_error_body(const ApiError& error);

// The message and its events (message_start, ping, content_block_start / _delta / _stop,
// message_delta with the stop_reason and usage, message_stop). `stop_sequences` and the
// tokenizer tell which stop sequence ended the answer (stop_reason "stop_sequence").
class MessageWriter final : public StreamEvents {
public:
    MessageWriter(std::string id, std::string model, std::int64_t input_tokens, std::vector<std::string> stop_sequences,
                  const llm::Tokenizer& tokenizer, ThinkingDisplay thinking = ThinkingDisplay::Shown);

    std::string begin() override;
    std::string pieces(const llm::AnswerPiece& parsed, std::span<const llm::TokenLogprob> logprobs) override;
    std::string finish(const llm::RequestResult& result, bool made_calls) override;
    std::string failure(const ApiError& error) override;

    // The message so far (after finish(): the final one).
    const nlohmann::json& message() const { return message_; }

private:
    std::string open_block(nlohmann::json block);
    std::string close_block();
    std::size_t open_for(const char* type, std::string& out);
    std::string matched_stop(const llm::RequestResult& result) const;

    nlohmann::json message_;
    std::vector<std::string> stop_sequences_;
    const llm::Tokenizer& tokenizer_;
    ThinkingDisplay thinking_;
    bool block_open_ = false;
    std::vector<std::string> arguments_;  // each tool_use block's input JSON text, as streamed
};

}  // namespace forge::app::serve
