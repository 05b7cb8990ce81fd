#include "models/llm/tool_calls/tool_format.h"

namespace forge::llm::tool_calls {

ToolFormat detect_tool_format(std::string_view t) {
    if (t.find("<tool_call>") != std::string_view::npos) return ToolFormat::Hermes;
    // Llama 3.1+: the ipython role and "parameters" in the call it shows the model.
    const bool llama3 = t.find("<|start_header_id|>") != std::string_view::npos;
    if (llama3 && (t.find("ipython") != std::string_view::npos || t.find("\"parameters\"") != std::string_view::npos))
        return ToolFormat::Llama3Json;
    return ToolFormat::Hermes;
}

bool template_renders_tools(std::string_view t) { return t.find("tools") != std::string_view::npos; }

const char* tool_format_name(ToolFormat format) {
    switch (format) {
        case ToolFormat::Hermes: return "hermes";
        case ToolFormat::Llama3Json: return "llama3-json";
    }
    return "hermes";
}

}  // namespace forge::llm::tool_calls
