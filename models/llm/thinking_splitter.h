// Splits a thinking model's streamed answer into its thinking and the answer proper, for APIs
// that return them apart (Ollama's message.thinking). Qwen3 and DeepSeek-R1 style: the answer
// opens with "<think>", thinks, and closes with "</think>"; the whitespace after either tag is
// dropped, as Ollama does. An answer that does not open with "<think>" is all content. Incremental: push each
// text piece as it is decoded; text that may still be part of a tag is held back until it is
// decided, so a tag never reaches either side.
//
//   ThinkingSplitter splitter;
//   for each piece:  auto out = splitter.push(piece);  // out.thinking, out.content
//   at the end:      auto out = splitter.finish();     // what was held back
#pragma once

#include <string>
#include <string_view>

namespace forge::llm {

struct SplitText {
    std::string thinking;
    std::string content;
};

class ThinkingSplitter {
public:
    SplitText push(std::string_view piece);
    SplitText finish();

private:
    enum class State { Start, AfterOpen, Thinking, AfterThinking, Content };
    // Drops whitespace at the start of pending_; moves to `next` once something else arrives.
    bool skip_space(State next, bool final);
    void scan(SplitText& out, bool final);

    State state_ = State::Start;
    std::string pending_;  // text not yet handed out
};

}  // namespace forge::llm
