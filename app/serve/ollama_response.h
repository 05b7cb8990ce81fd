// Answers in Ollama's shapes (ollama/ollama docs/api.md).
//
// chat:      {"model", "created_at", "message": {"role": "assistant", "content", "thinking"?, "tool_calls"?},
//             "done": false} per streamed piece; the last object has "done": true, "done_reason"
//             ("stop", "length"; "load" for a request without messages) and the counts and
//             durations (nanoseconds). Not streamed: one object, the last one with the whole text.
// generate:  the same with "response" (and "thinking") for "message", and "context" (the tokens of prompt and
//             answer, for a next request's `context`) in the last object.
// Streams are NDJSON: one object a line. Errors are {"error": "message"}.
// Tool calls: {"id", "function": {"index", "name", "arguments": {...}}} (arguments an object).
#pragma once

#include "app/serve/api_error.h"
#include "app/serve/ollama_request.h"
#include "models/llm/chat_template/chat_template.h"
#include "models/llm/generation_state.h"
#include "core/gguf/gguf_file.h"
#include "models/llm/model.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace forge::app::serve {

// What every object of one answer shares.
struct OllamaMeta {
    OllamaEndpoint endpoint = OllamaEndpoint::Chat;
    std::string model;  // as the request named it
};

// Ollama's `created_at`: now, RFC 3339 in UTC with nanoseconds ("2025-07-07T20:22:19.184789000Z").
std::string ollama_timestamp();

// What one object carries of the answer: thinking (with `think`), text and the calls completed
// with it (`first_call`: the index of the first of them in the answer).
struct OllamaText {
    std::string_view thinking;
    std::string_view content;
    std::span<const llm::ChatToolCall> calls;
    std::size_t first_call = 0;
};

// One streamed piece (done: false).
nlohmann::ordered_json ollama_chunk(const OllamaMeta& meta, const OllamaText& text);

// Seconds the request spent before generation (parsing, template, tokens) and in all.
struct OllamaTimes {
    double load_s = 0;
    double total_s = 0;
};
// The last object (done: true). `text`: the whole answer when not streamed, empty after a
// stream; `context` only for generate.
nlohmann::ordered_json ollama_done(const OllamaMeta& meta, const OllamaText& text, const llm::GenerationStats& stats,
                                   const OllamaTimes& times, const std::vector<std::int32_t>* context);
// The answer to a request without messages / prompt: the model is loaded (done_reason "load").
nlohmann::ordered_json ollama_loaded(const OllamaMeta& meta);

nlohmann::ordered_json ollama_error(const std::string& message);

// The served model as /api/tags, /api/ps and /api/show describe it.
struct OllamaModelFacts {
    std::string name;        // the name requests use
    std::string path;        // the GGUF file
    std::int64_t ctx_size;   // positions per slot (-c, capped at the trained length); 0 while not loaded
};
// {"name", "model", "modified_at", "size", "digest", "details"}.
nlohmann::ordered_json ollama_model_entry(const OllamaModelFacts& facts, const gguf::GgufFile& file);
// /api/show: modelfile, parameters, template, details, model_info (the GGUF's general.* and
// {arch}.* keys; the tokenizer's arrays only when `verbose`), capabilities.
nlohmann::ordered_json ollama_show(const OllamaModelFacts& facts, const gguf::GgufFile& file, std::string_view chat_template,
                           std::span<const std::string> capabilities, bool verbose);

}  // namespace forge::app::serve
