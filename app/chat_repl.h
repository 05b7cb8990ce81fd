// The interactive loop of `forge chat`: messages and /commands in, answers streamed out.
//
// A message is one line, or several: a line that ends with a backslash goes on with the next
// one (the backslash dropped), and a paste arrives whole (app/line_editor.h). A line that
// starts with '/' is a command (/help lists them; an unknown one is an error, never sent to the
// model; "//" sends a message that starts with '/'). On a terminal, Ctrl-C stops the answer
// being generated and returns to the prompt; at an empty prompt, a second Ctrl-C in a row
// exits, as Ctrl-D and /exit do. From a pipe, a command's error ends forge with status 1, so
// a script's mistake does not pass unseen.
#pragma once

#include "app/line_input.h"
#include "models/llm/chat_template/chat_template.h"

#include <functional>
#include <string>
#include <vector>

namespace forge::app {

// What the REPL drives: a conversation with a model (app/chat.cpp holds the real one).
class Conversation {
public:
    virtual ~Conversation() = default;

    // One user message; the answer streams to stdout and joins the conversation, even when
    // `stop` (asked between pieces of text) cuts it short. Returns false if it did.
    virtual bool turn(const std::string& user_text, const std::function<bool()>& stop) = 0;
    virtual void reset() = 0;                              // forget the messages, keep the system message
    virtual void set_system(const std::string& text) = 0;  // empty: none
    virtual const std::vector<llm::ChatMessage>& messages() const = 0;
    virtual const std::string& model_name() const = 0;
};

void run_repl(Conversation& conversation, LineInput& input);

}  // namespace forge::app
