// Splits a model's streamed answer into content text and function calls, incrementally: push
// each text piece as it is decoded, forward what comes back. Text that may still turn out to
// be part of a call (a partial "<tool_call>", a Llama answer that opens with '{') is held back,
// so call text and markup never reach `content`: not the tags (a malformed call gives back only
// its inner text; a stray "</tool_call>" is dropped), not the line ends between parallel calls. How serve uses it:
//
//   tool_calls::ToolCallParser parser(tool_calls::detect_tool_format(model_template), "call_" + random_id);
//   for each piece:  auto out = parser.push(piece);  // out.content -> delta.content,
//                                                    // out.tool_calls -> delta.tool_calls
//   at the end:      auto out = parser.finish();     // the rest; then parser.calls() holds every
//                                                    // call whole (finish_reason "tool_calls")
//
// Use it only when the request has tools and tool_choice is not "none" (otherwise the text is
// all content). A call's first delta has its index, id and name (and arguments ""); later deltas carry only
// pieces of the arguments' JSON text, which concatenate to the whole arguments string.
#pragma once

#include "models/llm/chat_template/chat_template.h"
#include "models/llm/tool_calls/call_scanner.h"
#include "models/llm/tool_calls/tool_format.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace forge::llm::tool_calls {

struct ToolCallDelta {
    int index = 0;
    std::string id;         // first delta of a call only
    std::string name;       // first delta of a call only
    std::string arguments;  // a piece of the arguments text
};

struct ParsedOutput {
    std::string content;
    std::vector<ToolCallDelta> tool_calls;
    bool empty() const { return content.empty() && tool_calls.empty(); }
};

class ToolCallParser {
public:
    explicit ToolCallParser(ToolFormat format, std::string id_prefix = "call_");

    ParsedOutput push(std::string_view piece);
    // The generation ended: held-back text is released. A call whose JSON object never closed
    // (the answer was cut by max_tokens or the context) is dropped: not in calls(), not in
    // content, and cut_call() says so; its streamed deltas were already sent, as OpenAI's are.
    // A call whose object closed without its "</tool_call>" is still a call.
    ParsedOutput finish();

    // The calls read so far, arguments whole (a cut call is not among them).
    const std::vector<ChatToolCall>& calls() const { return calls_; }
    bool cut_call() const { return cut_call_; }

private:
    void scan_content(ParsedOutput& out, bool final);
    void scan_call(ParsedOutput& out);
    void emit_call_progress(ParsedOutput& out);
    void close_call(ParsedOutput& out);
    bool hold_spaces_after_call(bool final);
    void drop_stray_closes();

    ToolFormat format_;
    std::string id_prefix_;
    std::string pending_;      // text not yet handed out
    bool in_call_ = false;
    std::optional<CallScanner> scanner_;
    std::string call_text_;    // the raw text of the current call (given back if it is no call)
    bool call_announced_ = false;
    bool llama_decided_ = false;  // Llama3Json: whether the answer's start was looked at
    bool llama_content_ = false;  // Llama3Json: the answer is plain text
    bool after_call_ = false;     // Hermes: a call just closed (spaces after it are layout)
    bool cut_call_ = false;
    std::vector<ChatToolCall> calls_;
};

}  // namespace forge::llm::tool_calls
