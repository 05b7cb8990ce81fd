// The body of POST /v1/chat/completions and POST /v1/completions, read and checked: every
// field forge honours becomes engine options; every field it cannot honour (n > 1, echo,
// image content, a schema feature the grammar engine lacks, ...) is an ApiError (400) naming
// the field, never silently dropped. llama-server's `grammar` (GBNF) and `json_schema`,
// `response_format` (chat), and `tool_choice` "required" or a named function compile to a
// grammar (models/llm/grammar) that the request's generation follows (two of the first three
// at once: 400); `tools` go to the chat template, and the answer is parsed for calls. Fields
// clients send as metadata (user, metadata, store, service_tier, model) are accepted; fields
// nobody defined are ignored, as llama-server does.
#pragma once

#include "app/serve/api_error.h"
#include "app/serve/grammar_cache.h"
#include "models/llm/chat_template/chat_template.h"
#include "models/llm/generation_state.h"
#include "models/llm/grammar/grammar.h"
#include "models/llm/tool_calls/tool_choice.h"
#include "models/llm/tool_calls/tool_format.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace forge::app::serve {

enum class Endpoint { ChatCompletions, Completions };

// What the server brings to the parse: the vocabulary (token ids in prompts and logit_bias),
// its defaults, and how the model writes tool calls (read from its chat template).
struct RequestLimits {
    std::int32_t n_vocab = 0;
    std::int64_t default_max_tokens = -1;  // --n-predict; < 0: until the end or the context is full
    llm::tool_calls::ToolFormat tool_format = llm::tool_calls::ToolFormat::Hermes;
    GrammarCache* grammars = nullptr;  // compiled grammars shared between requests (null: compile each time)
    std::size_t n_lora_adapters = 0;   // --lora adapters, the ids a request's "lora" may name
};

struct CompletionRequest {
    Endpoint endpoint = Endpoint::ChatCompletions;
    // Chat: the conversation and the template's options.
    std::vector<llm::ChatMessage> messages;
    llm::ChatOptions chat;
    // Completions: the prompt as text, or as token ids when it came as an array of ids.
    std::string prompt_text;
    std::vector<std::int32_t> prompt_tokens;
    bool prompt_is_tokens = false;

    llm::GenerationOptions generation;  // sampling, max_tokens, stop, logit_bias, top_logprobs
    std::vector<float> lora_scales;     // llama-server's "lora", one scale per adapter; empty: the global scales
    bool stream = false;
    bool include_usage = false;  // stream_options.include_usage
    bool logprobs = false;       // report each token's log-probability (top_logprobs alternatives)
    bool return_tokens = false;  // extension (llama-server): the generated token ids in the response

    // The grammar the answer must follow (grammar, json_schema, response_format, or
    // tool_choice required / named);
    // nullptr: none. Compiled here, so a bad schema is a 400 before anything runs.
    std::shared_ptr<const llm::grammar::Grammar> grammar;
    // Tools offered (chat.tools holds them for the template) and tool_choice is not "none": the
    // answer is split into content and tool_calls (models/llm/tool_calls/tool_call_parser.h).
    bool parse_tool_calls = false;
    llm::tool_calls::ToolChoice tool_choice;
};

// Parse and check `body` (already valid JSON) for `endpoint`. Throws ApiError.
// (ordered_json: schemas keep their authors' property order, which the answer follows.)
CompletionRequest parse_request(Endpoint endpoint, const nlohmann::ordered_json& body, const RequestLimits& limits);

// Parse the raw body text: malformed JSON or a non-object is a 400.
nlohmann::ordered_json parse_body(const std::string& text);

}  // namespace forge::app::serve
