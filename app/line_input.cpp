#include "app/line_input.h"

#include "app/line_editor.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace forge::app {

namespace {

// Lines from a pipe or a file: the prompt still goes to stderr (it shows a script's progress
// and keeps stdout to the answers).
class StreamLineInput : public LineInput {
public:
    InputLine read(const std::string& prompt) override {
        std::fputs(prompt.c_str(), stderr);
        InputLine line;
        if (!std::getline(std::cin, line.text)) return {InputLine::Kind::End, ""};
        line.kind = InputLine::Kind::Text;
        return line;
    }
    void remember(const std::string&) override {}
    bool take_interrupt() override { return false; }
    bool interactive() const override { return false; }
};

}  // namespace

std::unique_ptr<LineInput> open_line_input() {
    if (::isatty(STDIN_FILENO) == 1 && ::isatty(STDERR_FILENO) == 1) return std::make_unique<LineEditor>();
    return std::make_unique<StreamLineInput>();
}

}  // namespace forge::app
