#include "models/llm/answer_splitter.h"

namespace forge::llm {

namespace {

AnswerPiece from_harmony(tool_calls::HarmonyOutput out) {
    return {std::move(out.thinking), std::move(out.content), std::move(out.tool_calls)};
}

}  // namespace

AnswerFormat answer_format(std::string_view chat_template, bool split_reasoning) {
    if (!split_reasoning) return AnswerFormat::Plain;
    if (tool_calls::is_harmony_template(chat_template)) return AnswerFormat::Harmony;
    if (chat_template.find("<think>") != std::string_view::npos) return AnswerFormat::Thinking;
    return AnswerFormat::Plain;
}

AnswerSplitter::AnswerSplitter(AnswerFormat format, tool_calls::ToolFormat tool_format, bool parse_tool_calls,
                               std::string call_id_prefix) {
    // Harmony's calls are its own messages: its parser reads them, whatever the tool format.
    if (format == AnswerFormat::Harmony) {
        harmony_.emplace(std::move(call_id_prefix));
        return;
    }
    if (format == AnswerFormat::Thinking) thinking_.emplace();
    if (parse_tool_calls) tool_calls_.emplace(tool_format, std::move(call_id_prefix));
}

AnswerPiece AnswerSplitter::push(std::string_view text) {
    if (harmony_) return from_harmony(harmony_->push(text));
    return content_parts(thinking_ ? thinking_->push(text) : SplitText{"", std::string(text)}, false);
}

AnswerPiece AnswerSplitter::finish() {
    if (harmony_) return from_harmony(harmony_->finish());
    return content_parts(thinking_ ? thinking_->finish() : SplitText{}, true);
}

AnswerPiece AnswerSplitter::whole(std::string_view text) {
    AnswerPiece all = push(text);
    AnswerPiece rest = finish();
    all.reasoning += rest.reasoning;
    all.content += rest.content;
    all.tool_calls.insert(all.tool_calls.end(), rest.tool_calls.begin(), rest.tool_calls.end());
    return all;
}

std::span<const ChatToolCall> AnswerSplitter::calls() const {
    if (harmony_) return harmony_->calls();
    if (tool_calls_) return tool_calls_->calls();
    return {};
}

// The text after the reasoning goes through the tool-call parser, when there is one.
AnswerPiece AnswerSplitter::content_parts(SplitText split, bool last) {
    AnswerPiece piece{std::move(split.thinking), std::move(split.content), {}};
    if (!tool_calls_) return piece;
    tool_calls::ParsedOutput parsed = tool_calls_->push(piece.content);
    if (last) {
        tool_calls::ParsedOutput rest = tool_calls_->finish();
        parsed.content += rest.content;
        parsed.tool_calls.insert(parsed.tool_calls.end(), rest.tool_calls.begin(), rest.tool_calls.end());
    }
    piece.content = std::move(parsed.content);
    piece.tool_calls = std::move(parsed.tool_calls);
    return piece;
}

}  // namespace forge::llm
