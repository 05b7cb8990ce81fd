// Responses and stream chunks in OpenAI's shapes, and their Server-Sent Events framing.
//
// Chat:        {"id": "chatcmpl-…", "object": "chat.completion", "choices": [{"message": …}], "usage": …}
//   stream:    "chat.completion.chunk" objects; the first delta carries the role, the last
//              choice chunk the finish_reason; then a usage chunk (choices: []) when asked; then
//              "data: [DONE]".
// Completions: {"id": "cmpl-…", "object": "text_completion", "choices": [{"text": …}]}, the
//              same stream rules without the role.
#pragma once

#include "app/serve/openai_request.h"
#include "models/llm/generation_state.h"
#include "models/llm/tool_calls/tool_call_parser.h"
#include "models/llm/tokenizer/tokenizer.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace forge::app::serve {

// What every object of one response shares.
struct ResponseMeta {
    Endpoint endpoint = Endpoint::ChatCompletions;
    std::string id;          // chatcmpl-… or cmpl-…, one per request
    std::int64_t created = 0;  // Unix seconds
    std::string model;
};

// A fresh id for `endpoint` ("chatcmpl-" / "cmpl-" and 24 random alphanumerics), created = now.
ResponseMeta new_response_meta(Endpoint endpoint, std::string model);
// `prefix` and `n` random alphanumerics (response ids, tool call ids).
std::string random_id(std::string_view prefix, int n);

// "stop", "length" (max tokens or a full context); "tool_calls" when the answer that stopped
// made calls.
std::string finish_reason(llm::FinishReason reason, bool made_calls = false);

nlohmann::json usage_json(const llm::GenerationStats& stats);
// llama-server's "timings" (prompt_n, prompt_ms, ..., predicted_per_second; draft_n and
// draft_n_accepted when speculative decoding drafted): on a full response and the usage chunk.
nlohmann::json timings_json(const llm::GenerationStats& stats);

// The "logprobs" of a choice for these tokens: chat's {"content": [{token, logprob, bytes,
// top_logprobs}]} or completions' {tokens, token_logprobs, top_logprobs, text_offset}
// (`text_offset` counts from `offset`, the bytes of text before these tokens).
nlohmann::json logprobs_json(Endpoint endpoint, std::span<const llm::TokenLogprob> logprobs, const llm::Tokenizer& tokenizer,
                             std::size_t offset = 0);

// The whole answer of a request that did not stream.
struct Answer {
    std::string text;
    llm::GenerationStats stats;
    std::span<const llm::TokenLogprob> logprobs;  // empty unless asked for
    bool with_logprobs = false;
    std::optional<std::span<const std::int32_t>> tokens;  // the generated ids, when asked for (return_tokens)
    std::span<const llm::ChatToolCall> tool_calls;  // parsed out of `text` (which is then the rest)
    std::string reasoning;  // the model's reasoning, apart from `text` (message.reasoning_content)
};
nlohmann::json full_response(const ResponseMeta& meta, const Answer& answer, const llm::Tokenizer& tokenizer);

// One chunk of a stream: `text` (chat: delta.content; the role too when `first`), `reasoning`
// (delta.reasoning_content, as llama-server streams it), tool call
// deltas (delta.tool_calls, each with its index), the finish_reason when the choice ends,
// logprobs when asked for.
struct ChunkParts {
    std::string_view text;
    std::string_view reasoning;
    bool first = false;
    std::span<const llm::tool_calls::ToolCallDelta> tool_calls;
    std::optional<llm::FinishReason> finish;
    bool made_calls = false;  // with `finish`: the answer made tool calls
    std::optional<nlohmann::json> logprobs;
    bool usage_field = false;  // include "usage": null (streams with include_usage carry it on every chunk)
};
nlohmann::json chunk_json(const ResponseMeta& meta, const ChunkParts& parts);
// The closing chunk of a stream with include_usage: no choices, the usage.
nlohmann::json usage_chunk_json(const ResponseMeta& meta, const llm::GenerationStats& stats);

// Server-Sent Events framing: "data: <json>\n\n". Invalid UTF-8 (a token's bytes) is replaced,
// never an exception.
std::string sse_event(const nlohmann::json& value);
inline constexpr std::string_view kSseDone = "data: [DONE]\n\n";
// JSON text as sent in a response body (the same UTF-8 replacement).
std::string dump(const nlohmann::json& value);

}  // namespace forge::app::serve
