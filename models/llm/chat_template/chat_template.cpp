#include "models/llm/chat_template/chat_template.h"

#include "models/llm/chat_template/interpreter.h"
#include "models/llm/chat_template/parser.h"

#include <spdlog/spdlog.h>

namespace forge::llm {

std::string_view chatml_template() {
    return "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}"
           "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";
}

namespace {

// Messages as transformers passes them: reasoning_content only when there is some, because
// templates test `message.reasoning_content is defined` (Qwen3).
const std::string kReasoningKey = "reasoning_content";

jinja::Value messages_value(std::span<const ChatMessage> messages) {
    jinja::List list;
    for (const ChatMessage& m : messages) {
        auto message = std::make_shared<jinja::Dict>();
        message->emplace_back("role", m.role);
        message->emplace_back("content", m.content);
        if (!m.reasoning_content.empty()) message->emplace_back(kReasoningKey, m.reasoning_content);
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
    return jinja::Interpreter(template_source, globals).render(program);
}

}  // namespace forge::llm
