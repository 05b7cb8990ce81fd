#include "models/llm/tool_calls/tool_prompt.h"

#include "models/llm/tool_calls/tool_format.h"

#include <fmt/format.h>

namespace forge::llm::tool_calls {

namespace {

std::string tools_system_text(const nlohmann::ordered_json& tools) {
    std::string text =
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
        "You are provided with function signatures within <tools></tools> XML tags:\n<tools>";
    for (const auto& tool : tools) {
        text += '\n';
        text += tool.dump();
    }
    text += "\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
            "<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>";
    return text;
}

// The conversation with tools spelled out in plain messages.
std::vector<ChatMessage> spelled_out(std::span<const ChatMessage> messages, const nlohmann::ordered_json& tools) {
    std::vector<ChatMessage> out;
    const bool has_system = !messages.empty() && messages[0].role == "system";
    ChatMessage system{"system", has_system ? messages[0].content + "\n\n" : "", "", {}, "", ""};
    system.content += tools_system_text(tools);
    out.push_back(std::move(system));
    for (std::size_t i = has_system ? 1 : 0; i < messages.size(); ++i) {
        ChatMessage m = messages[i];
        for (const ChatToolCall& call : m.tool_calls) {
            if (!m.content.empty()) m.content += '\n';
            m.content += fmt::format("<tool_call>\n{{\"name\": {}, \"arguments\": {}}}\n</tool_call>", nlohmann::json(call.name).dump(),
                                     call.arguments);
        }
        m.tool_calls.clear();
        if (m.role == "tool") {
            m.role = "user";
            m.content = "<tool_response>\n" + m.content + "\n</tool_response>";
            m.tool_call_id.clear();
            m.name.clear();
        }
        out.push_back(std::move(m));
    }
    return out;
}

}  // namespace

std::string render_with_tools(std::string_view chat_template, std::span<const ChatMessage> messages, const ChatOptions& options) {
    const bool have_tools = options.tools.is_array() && !options.tools.empty();
    if (!have_tools || template_renders_tools(chat_template)) return render_chat(chat_template, messages, options);
    ChatOptions plain = options;
    plain.tools = nullptr;
    const auto spelled = spelled_out(messages, options.tools);
    return render_chat(chat_template, spelled, plain);
}

}  // namespace forge::llm::tool_calls
