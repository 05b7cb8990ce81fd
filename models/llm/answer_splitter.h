// A chat answer split as the APIs return it: the model's reasoning apart from the answer
// proper (OpenAI's message.reasoning_content, Ollama's message.thinking), and the tool calls
// apart from the content. Which splitter reads the text is the chat template's family:
//
//   gpt-oss (harmony)      HarmonyParser: analysis -> reasoning, final -> content,
//                          commentary to=functions.NAME -> a tool call
//   a template with <think> (Qwen3, DeepSeek-R1)
//                          ThinkingSplitter, then the family's ToolCallParser on the content
//   any other              the family's ToolCallParser (with tools), or all content
//
// `forge serve --reasoning-format none` (llama-server's flag) and the APIs without a reasoning
// field read every answer as Plain: the model's text as it wrote it (think tags, harmony
// markup) is the content. Used by serve's routes and `forge chat`. Incremental: push
// each decoded piece, send what comes back; nothing is ever sent twice.
//
//   AnswerSplitter answer(answer_format(chat_template, true), tool_format, true, "call_x_");
//   for each piece:  auto out = answer.push(piece);  // out.reasoning, out.content, out.tool_calls
//   at the end:      auto out = answer.finish();     // answer.calls(): every call whole
#pragma once

#include "models/llm/thinking_splitter.h"
#include "models/llm/tool_calls/harmony_parser.h"
#include "models/llm/tool_calls/tool_call_parser.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace forge::llm {

// How a model's answers are read.
enum class AnswerFormat {
    Plain,     // no reasoning markup: tool calls (when asked for) and content
    Thinking,  // "<think>...</think>" before the answer
    Harmony,   // gpt-oss's channels
};
// The format of answers to `chat_template`; Plain when `split_reasoning` is false (the text
// is returned as the model wrote it).
AnswerFormat answer_format(std::string_view chat_template, bool split_reasoning);

struct AnswerPiece {
    std::string reasoning;
    std::string content;
    std::vector<tool_calls::ToolCallDelta> tool_calls;
    bool empty() const { return reasoning.empty() && content.empty() && tool_calls.empty(); }
};

class AnswerSplitter {
public:
    // `parse_tool_calls`: the request has tools (and tool_choice is not "none"); calls get ids
    // "<call_id_prefix><index>".
    AnswerSplitter(AnswerFormat format, tool_calls::ToolFormat tool_format, bool parse_tool_calls, std::string call_id_prefix);

    AnswerPiece push(std::string_view text);
    // The generation ended: what was held back.
    AnswerPiece finish();
    // A whole answer at once (push, then finish).
    AnswerPiece whole(std::string_view text);

    // The calls read so far, arguments whole.
    std::span<const ChatToolCall> calls() const;

private:
    AnswerPiece content_parts(SplitText split, bool last);

    std::optional<tool_calls::HarmonyParser> harmony_;
    std::optional<ThinkingSplitter> thinking_;
    std::optional<tool_calls::ToolCallParser> tool_calls_;
};

}  // namespace forge::llm
