// gpt-oss's reply in OpenAI's harmony format, split as the API returns it. The reply is a series
// of messages, each a header, "<|message|>", a body and an end:
//
//   <|channel|>analysis<|message|>The user wants...<|end|>                         -> thinking
//   <|start|>assistant<|channel|>final<|message|>It is sunny.                      -> content
//   <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json
//       <|message|>{"city":"Paris"}                                                -> a tool call
//
// A header names the channel ("analysis", "commentary", "final") and, for a tool call, the
// recipient ("to=functions.NAME", before or after the channel). Bodies end with "<|end|>" (the
// model goes on with another message), "<|call|>" or "<|return|>" (those two end generation, so
// they usually never reach the text) or "<|start|>". A commentary message without a recipient
// is a preamble the user may see: content. Text that does not open with a header is content
// (a reply that ignores the format loses nothing).
//
// Incremental, like ThinkingSplitter and ToolCallParser: push each decoded piece; text that may
// still be markup is held back until it is decided, so no markup reaches any side, whatever the
// pieces. The tokens "<|channel|>", "<|message|>", "<|start|>" and "<|end|>" print as text
// (llama.cpp and forge make them user-defined in gpt-oss's vocabulary).
//
//   tool_calls::HarmonyParser parser("call_" + random_id);
//   for each piece:  auto out = parser.push(piece);  // out.thinking -> reasoning_content,
//                                                    // out.content, out.tool_calls (deltas)
//   at the end:      auto out = parser.finish();     // parser.calls(): every call whole
#pragma once

#include "models/llm/chat_template/chat_template.h"
#include "models/llm/tool_calls/tool_call_parser.h"

#include <string>
#include <string_view>
#include <vector>

namespace forge::llm::tool_calls {

struct HarmonyOutput {
    std::string thinking;
    std::string content;
    std::vector<ToolCallDelta> tool_calls;
    bool empty() const { return thinking.empty() && content.empty() && tool_calls.empty(); }
};

// Whether a chat template writes harmony (gpt-oss's): its replies need a HarmonyParser.
bool is_harmony_template(std::string_view chat_template);

class HarmonyParser {
public:
    explicit HarmonyParser(std::string id_prefix = "call_");

    HarmonyOutput push(std::string_view piece);
    // The generation ended: what was held back is released (a header cut short is dropped).
    HarmonyOutput finish();

    // The calls read so far, arguments whole.
    const std::vector<ChatToolCall>& calls() const { return calls_; }

private:
    enum class State { Header, Body };
    enum class Route { Thinking, Content, Call };

    void scan(HarmonyOutput& out, bool final);
    bool read_header(HarmonyOutput& out, bool final);  // false: wait for more text
    bool read_body(HarmonyOutput& out, bool final);    // false: wait for more text
    void open_message(std::string_view header, HarmonyOutput& out);
    void emit(std::string_view text, HarmonyOutput& out);

    std::string id_prefix_;
    State state_ = State::Header;
    Route route_ = Route::Content;
    std::string pending_;  // text not yet handed out
    bool not_a_header_ = false;  // the body began where a header was expected but none came
    std::vector<ChatToolCall> calls_;
};

}  // namespace forge::llm::tool_calls
