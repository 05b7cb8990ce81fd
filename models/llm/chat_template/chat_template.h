// Chat templates: turning a conversation into the prompt text a model was trained on, by
// rendering the Jinja template stored in the GGUF (`tokenizer.chat_template`) the way
// Hugging Face transformers does (jinja2 with trim_blocks=True, lstrip_blocks=True).
//
// Only the Jinja subset that real model templates use is supported (Qwen2/Qwen3, Llama 3,
// ChatML, Gemma, Mistral, Phi); anything else fails with an Error naming the construct and
// its line:column, never with silently wrong text.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace forge::llm {

// A function call an assistant made (OpenAI's tool_calls[i]).
struct ChatToolCall {
    std::string id;         // "call_..."
    std::string name;       // function.name
    std::string arguments;  // function.arguments: JSON text (templates get it parsed, as llama.cpp does)
};

struct ChatMessage {
    std::string role;     // "system", "user", "assistant", "tool"
    std::string content;
    std::string reasoning_content;  // an assistant's thinking; empty = none
    // (Initialized so that {role, content, reasoning} stays a complete initializer under -Wextra.)
    std::vector<ChatToolCall> tool_calls = {};  // an assistant's calls
    std::string tool_call_id = {};              // a tool message: the call it answers
    std::string name = {};                      // a tool message: the function's name (optional)
};

struct ChatOptions {
    bool add_generation_prompt = true;   // end with the header that opens the assistant's turn
    std::optional<bool> enable_thinking; // unset = the template's default (Qwen3: on)
    std::string bos_token;               // the tokenizer's BOS/EOS texts, for templates that print them
    std::string eos_token;
    // OpenAI's `tools` array ([{"type": "function", "function": {name, description, parameters}}]),
    // passed to the template as `tools` (null or empty: none). Keep the client's key order
    // (ordered_json): templates print the tools with tojson.
    nlohmann::ordered_json tools;
};

// The ChatML template (Qwen2 style), used when a model has none.
std::string_view chatml_template();

// Renders `template_source` for `messages`. An empty template_source falls back to ChatML
// and logs a warning. Throws forge::Error on a template error (with line:column) or when the
// template calls raise_exception().
std::string render_chat(std::string_view template_source, std::span<const ChatMessage> messages,
                        const ChatOptions& options);

}  // namespace forge::llm
