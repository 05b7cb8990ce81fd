// The bodies of Ollama's POST /api/chat and POST /api/generate (ollama/ollama docs/api.md),
// read and checked, and translated into the CompletionRequest the OpenAI routes make
// (openai_request.h): the same template rendering, sampling, tool-call parsing and grammar,
// with Ollama's field names in every error.
//
//   chat:      messages (role, content, thinking, tool_calls with arguments as an object,
//              tool_name), tools, format, options, stream (default true), think, keep_alive;
//              and tool_choice (a forge extension, OpenAI's values; Ollama's is always "auto")
//   generate:  prompt, system, raw, format, options, stream, think, keep_alive, context
//   think:     true / false -> the template's enable_thinking; left out, a model that thinks
//              thinks (Ollama's default), its thinking returned apart (ollama_api.cpp)
//   format:    "json" (any JSON object) or a JSON schema -> the grammar engine
//   grammar:   both routes, a forge extension: llama-server's GBNF field (not with format)
//   options:   temperature, top_p, top_k, min_p, seed, num_predict, stop, num_ctx,
//              repeat_penalty, presence_penalty, frequency_penalty; any other option is ignored
//              (logged), as Ollama ignores options it does not know.
//
// What forge cannot do is a 400 naming the field: images (text-only models), generate's
// `template` (forge renders with the model's own Jinja template, not Go templates) and
// `suffix` (no fill-in-the-middle), thinking levels ("low", ...), tools together with format.
#pragma once

#include "app/serve/openai_request.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace forge::app::serve {

enum class OllamaEndpoint { Chat, Generate };

struct OllamaRequest {
    OllamaEndpoint endpoint = OllamaEndpoint::Chat;
    // The request as the OpenAI routes would run it (chat: ChatCompletions; generate: a user
    // turn through the template, or with `raw` the prompt as text, Completions).
    CompletionRequest completion;
    // Ollama's load request: no messages / no prompt. Answered at once (done_reason "load").
    bool load_only = false;
    // generate's `context`: the tokens of an earlier answer (its prompt and reply), put before
    // this prompt's tokens. Checked against the vocabulary.
    std::vector<std::int32_t> context;
    // options.num_ctx: the context this request may use (prompt and answer); capped at the
    // server's --ctx-size. Unset: the slot's whole context.
    std::optional<std::int64_t> num_ctx;
};

// The model a body names ("model", required, a string). Throws ApiError 400.
std::string ollama_model_name(const nlohmann::ordered_json& body);

// Parse and check `body` (valid JSON, an object). Throws ApiError (400) naming Ollama's field.
OllamaRequest parse_ollama_request(OllamaEndpoint endpoint, const nlohmann::ordered_json& body, const RequestLimits& limits);

}  // namespace forge::app::serve
