#include "models/llm/chat_template/chat_template.h"

#include "core/error.h"
#include "core/json.h"
#include "models/llm/chat_template/interpreter.h"
#include "models/llm/chat_template/limits.h"
#include "models/llm/chat_template/parser.h"

#include <spdlog/spdlog.h>

namespace forge::llm {

std::string_view chatml_template() {
    return "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}"
           "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";
}

namespace {

// Messages as transformers passes them: reasoning_content only when there is some, because
// templates test `message.reasoning_content is defined` (Qwen3). gpt-oss's template reads the
// same text as `thinking` (its analysis channel), which llama.cpp's server fills from
// reasoning_content too.
const std::string kReasoningKey = "reasoning_content";
const std::string kThinkingKey = "thinking";

// JSON (tools, call arguments) as template values: objects keep their key order.
jinja::Value json_value(const nlohmann::ordered_json& j) {
    switch (j.type()) {
        case nlohmann::ordered_json::value_t::object: {
            auto dict = std::make_shared<jinja::Dict>();
            for (const auto& [key, value] : j.items()) dict->emplace_back(key, json_value(value));
            return jinja::Value::from_dict(std::move(dict));
        }
        case nlohmann::ordered_json::value_t::array: {
            jinja::List list;
            for (const auto& item : j) list.push_back(json_value(item));
            return list;
        }
        case nlohmann::ordered_json::value_t::string: return j.get<std::string>();
        case nlohmann::ordered_json::value_t::boolean: return j.get<bool>();
        case nlohmann::ordered_json::value_t::number_integer:
        case nlohmann::ordered_json::value_t::number_unsigned: return j.get<std::int64_t>();
        case nlohmann::ordered_json::value_t::number_float: return j.get<double>();
        default: return jinja::None{};
    }
}

// Arguments as a dict when they are JSON (Llama 3.1's template prints them with tojson),
// else the text as given. json_value recurses along the nesting, so arguments nested deeper
// than the template's own values may be (a request's string of 200 000 '[') stay text.
jinja::Value arguments_value(const std::string& arguments) {
    try {
        return json_value(parse_ordered_json(arguments, "tool call arguments", jinja::kMaxValueDepth));
    } catch (const FormatError&) {
        return jinja::Value(arguments);
    }
}

// OpenAI's shape, as transformers passes it: {id, type: "function", function: {name, arguments}}.
jinja::Value tool_calls_value(const std::vector<ChatToolCall>& calls) {
    jinja::List list;
    for (const ChatToolCall& call : calls) {
        auto function = std::make_shared<jinja::Dict>();
        function->emplace_back("name", call.name);
        function->emplace_back("arguments", arguments_value(call.arguments));
        auto entry = std::make_shared<jinja::Dict>();
        entry->emplace_back("id", call.id);
        entry->emplace_back("type", "function");
        entry->emplace_back("function", jinja::Value::from_dict(std::move(function)));
        list.push_back(jinja::Value::from_dict(std::move(entry)));
    }
    return list;
}

jinja::Value messages_value(std::span<const ChatMessage> messages) {
    jinja::List list;
    for (const ChatMessage& m : messages) {
        auto message = std::make_shared<jinja::Dict>();
        message->emplace_back("role", m.role);
        message->emplace_back("content", m.content);
        if (!m.reasoning_content.empty()) {
            message->emplace_back(kReasoningKey, m.reasoning_content);
            message->emplace_back(kThinkingKey, m.reasoning_content);
        }
        if (!m.tool_calls.empty()) message->emplace_back("tool_calls", tool_calls_value(m.tool_calls));
        if (!m.tool_call_id.empty()) message->emplace_back("tool_call_id", m.tool_call_id);
        if (!m.name.empty()) message->emplace_back("name", m.name);
        list.push_back(jinja::Value::from_dict(std::move(message)));
    }
    return list;
}

}  // namespace

std::string render_chat(std::string_view template_source, std::span<const ChatMessage> messages, const ChatOptions& options) {
    if (template_source.empty()) {
        spdlog::warn("the model has no chat template (tokenizer.chat_template); using ChatML");
        template_source = chatml_template();
    }
    const jinja::Body program = jinja::parse(template_source);
    jinja::Dict globals{
        {"messages", messages_value(messages)},
        {"add_generation_prompt", jinja::Value(options.add_generation_prompt)},
        {"bos_token", jinja::Value(options.bos_token)},
        {"eos_token", jinja::Value(options.eos_token)},
    };
    if (options.enable_thinking) globals.emplace_back("enable_thinking", jinja::Value(*options.enable_thinking));
    if (options.tools.is_array() && !options.tools.empty()) globals.emplace_back("tools", json_value(options.tools));
    return jinja::Interpreter(template_source, globals).render(program);
}

}  // namespace forge::llm
