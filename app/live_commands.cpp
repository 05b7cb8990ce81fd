#include "app/live_commands.h"

#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace forge::app {

LiveCommands::LiveCommands() {
    if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_) != 0) return;
    struct termios keys = saved_;
    keys.c_lflag &= static_cast<tcflag_t>(~(ICANON | ECHO));
    keys.c_cc[VMIN] = 1;
    keys.c_cc[VTIME] = 0;
    raw_ = tcsetattr(STDIN_FILENO, TCSANOW, &keys) == 0;
}

LiveCommands::~LiveCommands() {
    if (raw_) tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
}

LiveCommand LiveCommands::wait(int timeout_ms) {
    if (!open_) {
        std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
        return LiveCommand::none;
    }
    struct pollfd in {STDIN_FILENO, POLLIN, 0};
    if (poll(&in, 1, timeout_ms) <= 0) return LiveCommand::none;  // nothing typed (or a signal)
    char text[64];
    const ssize_t n = read(STDIN_FILENO, text, sizeof text);
    if (n <= 0) {
        open_ = false;  // end of input (a closed pipe, /dev/null): only Ctrl-C and --seconds stop
        return LiveCommand::none;
    }
    for (ssize_t i = 0; i < n; ++i) {
        if (text[i] == 'r' || text[i] == 'R') return LiveCommand::reload;
        if (text[i] == 'q' || text[i] == 'Q') return LiveCommand::quit;
    }
    return LiveCommand::none;
}

}  // namespace forge::app
