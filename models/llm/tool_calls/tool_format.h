// How a model writes a function call, read from its chat template (the format it was trained on):
//
//   Hermes    <tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>   (Qwen2.5, Qwen3, Hermes;
//             several calls are several blocks; text may come before them)
//   Llama3Json {"name": "f", "parameters": {...}}                            (Llama 3.1/3.2/3.3 JSON
//             tool calling: the whole answer is the call; "<|python_tag|>" may open it)
//
// Templates that show neither get Hermes, with the tools described in a system message by
// render_with_tools (tool_prompt.h), as llama.cpp's generic fallback does.
#pragma once

#include <string_view>

namespace forge::llm::tool_calls {

enum class ToolFormat { Hermes, Llama3Json };

ToolFormat detect_tool_format(std::string_view chat_template);
// Whether the template renders `tools` itself (else they go in a system message).
bool template_renders_tools(std::string_view chat_template);
const char* tool_format_name(ToolFormat format);

}  // namespace forge::llm::tool_calls
