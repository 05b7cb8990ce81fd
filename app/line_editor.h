// The terminal side of app/line_input.h: Debian's libedit (BSD editline) edits the line
// (arrows, Home/End, Ctrl-A/E/K/W, ~/.editrc) and keeps the history, which persists in
// $XDG_STATE_HOME/forge/chat_history (default ~/.local/state/forge/).
//
// What libedit does not do on its own, done here:
// - Ctrl-C. The terminal keeps generating SIGINT (so Ctrl-Z and the rest work as usual); a
//   SignalFlag catches it, and our character reader turns it into a key bound to "interrupt
//   the line", so the caller gets InputLine::Kind::Interrupted instead of a dead process.
//   Between reads (while an answer is generated) the same flag is what take_interrupt() sees.
// - Pastes. The terminal is asked for bracketed paste (ESC [ ? 2004 h): it wraps a paste in
//   ESC [ 200 ~ ... ESC [ 201 ~, and the paste goes into the line whole, newlines included, so
//   a pasted paragraph is one message and Enter sends it.
// - Resizes (SIGWINCH) reach libedit through the same reader.
#pragma once

#include "app/line_input.h"
#include "app/signal_flag.h"

#include <histedit.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace forge::app {

// Where the chat history lives; nullopt when neither XDG_STATE_HOME nor HOME is set.
std::optional<std::filesystem::path> chat_history_path();

class LineEditor : public LineInput {
public:
    LineEditor();
    ~LineEditor() override;
    LineEditor(const LineEditor&) = delete;
    LineEditor& operator=(const LineEditor&) = delete;

    InputLine read(const std::string& prompt) override;
    void remember(const std::string& entry) override;
    bool take_interrupt() override { return interrupt_.take(); }
    bool interactive() const override { return true; }

private:
    static int read_char(EditLine* el, wchar_t* out);
    static unsigned char interrupt_key(EditLine* el, int key);
    static unsigned char paste_key(EditLine* el, int key);
    static char* prompt_text(EditLine* el);
    static LineEditor& of(EditLine* el);

    void load_history();
    void save_history();

    SignalFlag interrupt_{SIGINT};
    SignalFlag resized_{SIGWINCH};
    std::unique_ptr<History, void (*)(History*)> history_;
    std::unique_ptr<EditLine, void (*)(EditLine*)> editor_;
    std::optional<std::filesystem::path> history_file_;
    std::string prompt_;
    bool bracketed_paste_;      // asked of the terminal around each read
    bool interrupted_ = false;  // the last read ended with Ctrl-C
};

}  // namespace forge::app
