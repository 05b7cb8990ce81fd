// A conversation with tools as prompt text. Templates that know tools (Qwen2.5/Qwen3, Llama
// 3.1+) get `tools`, assistant `tool_calls` and `tool` messages and render them themselves;
// for a template that does not mention tools, they are described in the system message in
// the Hermes format (as Qwen's template words it), calls written as <tool_call> blocks and
// results as <tool_response> user turns, which is llama.cpp's generic fallback in spirit.
//
//   ChatOptions o;  o.tools = body["tools"];   // ordered_json
//   std::string prompt = tool_calls::render_with_tools(model_template, messages, o);
#pragma once

#include "models/llm/chat_template/chat_template.h"

#include <span>
#include <string>
#include <string_view>

namespace forge::llm::tool_calls {

std::string render_with_tools(std::string_view chat_template, std::span<const ChatMessage> messages, const ChatOptions& options);

}  // namespace forge::llm::tool_calls
