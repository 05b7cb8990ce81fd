// What a user types while `forge nam live` plays, read without blocking the main loop:
//   r             reload the model file (a model retrained in the meantime: swapped in without a glitch)
//   load PATH     switch to another model file (or `load default`), swapped in the same way
//   q             stop
// On a terminal `r` and `q` act at once as keys (no Enter, no echo; the terminal's mode is
// restored at the end). From a pipe on stdin, and from the command FIFO of `--control FIFO`
// (created when absent, removed at the end if forge created it), commands arrive as lines:
// `echo 'load amp2.nam' > ctl`. The FIFO is held open for writing too, so that each writer
// closing it does not end the input.
#pragma once

#include <termios.h>

#include <deque>
#include <string>

namespace forge::app {

struct LiveCommand {
    enum class Kind { none, reload, load, quit };
    Kind kind = Kind::none;
    std::string path;  // load: the model file
};

class LiveCommands {
public:
    // `control_fifo`: the path of the command FIFO, or empty for stdin only.
    explicit LiveCommands(const std::string& control_fifo = "");
    ~LiveCommands();
    LiveCommands(const LiveCommands&) = delete;
    LiveCommands& operator=(const LiveCommands&) = delete;

    // Waits up to `timeout_ms` for input; the next command, or none.
    LiveCommand wait(int timeout_ms);

private:
    // One input: stdin or the FIFO, with the part of a line not ended yet.
    struct Source {
        int fd = -1;
        bool keys = false;   // a terminal in single-key mode
        std::string partial;
    };
    void read_from(Source& source);
    void parse_line(const std::string& line);

    Source stdin_, control_;
    std::string control_path_;
    bool created_fifo_ = false;
    bool raw_ = false;      // the terminal was switched to single keys
    struct termios saved_ {};
    std::deque<LiveCommand> queued_;
};

}  // namespace forge::app
