// Where the lines of an interactive command (the `forge chat` REPL) come from: a line
// editor with history on a terminal, plain lines from stdin otherwise (a script piping its
// input keeps working).
#pragma once

#include <memory>
#include <string>

namespace forge::app {

struct InputLine {
    enum class Kind {
        Text,         // a line ended by Enter; it may hold newlines (a paste)
        Interrupted,  // Ctrl-C while editing; text holds what was discarded
        End,          // end of input (Ctrl-D, or the end of a pipe)
    };
    Kind kind = Kind::End;
    std::string text;
};

class LineInput {
public:
    virtual ~LineInput() = default;

    virtual InputLine read(const std::string& prompt) = 0;
    // Add an entry to the history that the Up arrow recalls (and that the next session
    // remembers); a no-op without a terminal.
    virtual void remember(const std::string& entry) = 0;
    // Whether Ctrl-C was pressed since the last call (only a terminal catches it: elsewhere
    // SIGINT ends forge as usual).
    virtual bool take_interrupt() = 0;
    virtual bool interactive() const = 0;
};

// The line editor (app/line_editor.h) when stdin and stderr are terminals; else stdin's lines.
std::unique_ptr<LineInput> open_line_input();

}  // namespace forge::app
