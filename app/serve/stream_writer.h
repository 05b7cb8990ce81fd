// One streamed response: the events of a running request, written as the scheduler hands out
// text, until the API's closing event. A client that is gone (a failed write, or a dead socket
// while the request waits or reads its prompt) cancels the request, which frees its slot at
// the scheduler's next step. A request cancelled by the shutdown ends with an error event.
// The text goes through the request's AnswerSplitter first (models/llm/answer_splitter.h): reasoning and
// calls reach the API's writer apart from the content, never as content.
//
// The loop is the same for every API; what differs is the bytes of each event. An API says
// them in a StreamEvents: OpenAI's chat and completions chunks (make_chunk_writer below),
// the Responses API's typed events (responses_api.h), Anthropic's message events
// (anthropic_api.h).
#pragma once

#include "app/serve/api_error.h"
#include "app/serve/metrics.h"
#include "app/serve/openai_response.h"
#include "app/serve/request_stream.h"
#include "models/llm/answer_splitter.h"
#include "models/llm/scheduler.h"

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace forge::app::serve {

// A request handed to the scheduler, as every API's handler holds it.
struct RunningRequest {
    std::shared_ptr<RequestStream> stream;
    std::shared_ptr<llm::RequestHandle> handle;
    std::shared_ptr<llm::AnswerSplitter> answer;  // reasoning, content and tool calls apart
    std::int64_t prompt_tokens = 0;
    // The model's lease (server.h's ModelLease), held until the answer is sent or streamed:
    // the registry never unloads a model under a running request.
    std::shared_ptr<const void> model;
};

// The bytes an API sends for each step of an answer (empty: nothing to send now).
class StreamEvents {
public:
    virtual ~StreamEvents() = default;
    // Before any text (the role chunk, response.created, message_start).
    virtual std::string begin() = 0;
    // Text as it arrives, split into reasoning, content and call deltas; log-probabilities of its tokens.
    virtual std::string pieces(const llm::AnswerPiece& parsed, std::span<const llm::TokenLogprob> logprobs) = 0;
    // The answer is over; `made_calls`: it made tool calls.
    virtual std::string finish(const llm::RequestResult& result, bool made_calls) = 0;
    // The request failed (500) or the server is shutting down (503): the last event.
    virtual std::string failure(const ApiError& error) = 0;
};

// `write` sends bytes (false: the client is gone); `alive` says whether the client is still
// connected while nothing is being written.
void write_events(const RunningRequest& request, StreamEvents& events, Metrics* metrics,
                  const std::function<bool(std::string_view)>& write, const std::function<bool()>& alive);

// A finished request's whole text through `events` as if it had streamed (reasoning and tool
// calls split the same way): a non-streamed answer built by the code that streams it.
void replay_events(const RunningRequest& request, const llm::RequestResult& result, StreamEvents& events);

// The answer was cut by max_tokens or a full context ("length", "max_output_tokens", "max_tokens").
inline bool cut_by_length(llm::FinishReason reason) {
    return reason == llm::FinishReason::MaxTokens || reason == llm::FinishReason::ContextFull;
}

// A Server-Sent Event with a name ("event: NAME\ndata: JSON\n\n"), as the Responses and
// Anthropic streams send them.
std::string sse_named_event(std::string_view name, const nlohmann::json& data);

// OpenAI's chat.completion.chunk / text_completion chunks, then the usage chunk (when asked)
// and "data: [DONE]".
std::unique_ptr<StreamEvents> make_chunk_writer(ResponseMeta meta, bool include_usage, bool logprobs, const llm::Tokenizer& tokenizer);

}  // namespace forge::app::serve
