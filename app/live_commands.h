// What a user types while `forge nam live` plays, read from stdin without blocking the main
// loop: `r` reloads the model (a model retrained in the meantime: swapped in without a
// glitch), `q` stops. On a terminal the keys act at once (no Enter, no echo; the terminal's
// mode is restored at the end); from a pipe or a FIFO (`mkfifo ctl; forge nam live < ctl`,
// then `echo r > ctl`) the same letters arrive as lines.
#pragma once

#include <termios.h>

namespace forge::app {

enum class LiveCommand { none, reload, quit };

class LiveCommands {
public:
    LiveCommands();
    ~LiveCommands();
    LiveCommands(const LiveCommands&) = delete;
    LiveCommands& operator=(const LiveCommands&) = delete;

    // Waits up to `timeout_ms` for input; the first command typed, or none.
    LiveCommand wait(int timeout_ms);

private:
    bool open_ = true;      // stdin not at its end yet
    bool raw_ = false;      // the terminal was switched to single keys
    struct termios saved_ {};
};

}  // namespace forge::app
