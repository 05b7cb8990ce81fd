#include "app/live_commands.h"

#include "core/error.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>

namespace forge::app {
namespace {

std::string trimmed(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// The FIFO at `path`, created when absent (`created` says so); an existing file that is not
// a FIFO is an error. Opened read-write and non-blocking: no wait for a writer, and no end of
// input when one closes.
int open_fifo(const std::string& path, bool& created) {
    struct stat info {};
    if (stat(path.c_str(), &info) != 0) {
        check(errno == ENOENT && mkfifo(path.c_str(), 0600) == 0, "--control {}: cannot create the FIFO: {}", path,
              std::strerror(errno));
        created = true;
    } else {
        check(S_ISFIFO(info.st_mode), "--control {}: exists and is not a FIFO (mkfifo makes one; or name a new path)", path);
    }
    const int fd = open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
    check(fd >= 0, "--control {}: cannot open: {}", path, std::strerror(errno));
    return fd;
}

}  // namespace

LiveCommands::LiveCommands(const std::string& control_fifo) : control_path_(control_fifo) {
    stdin_.fd = STDIN_FILENO;
    if (!control_fifo.empty()) control_.fd = open_fifo(control_fifo, created_fifo_);
    if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_) != 0) return;
    struct termios keys = saved_;
    keys.c_lflag &= static_cast<tcflag_t>(~(ICANON | ECHO));
    keys.c_cc[VMIN] = 1;
    keys.c_cc[VTIME] = 0;
    raw_ = tcsetattr(STDIN_FILENO, TCSANOW, &keys) == 0;
    stdin_.keys = raw_;
}

LiveCommands::~LiveCommands() {
    if (raw_) tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
    if (control_.fd >= 0) close(control_.fd);
    if (created_fifo_) unlink(control_path_.c_str());
}

LiveCommand LiveCommands::wait(int timeout_ms) {
    if (queued_.empty()) {
        struct pollfd fds[2] = {{stdin_.fd, POLLIN, 0}, {control_.fd, POLLIN, 0}};  // a negative fd is skipped
        if (poll(fds, 2, timeout_ms) > 0) {  // else nothing typed (or a signal)
            if (fds[0].revents != 0) read_from(stdin_);
            if (fds[1].revents != 0) read_from(control_);
        }
    }
    if (queued_.empty()) return {};
    LiveCommand next = std::move(queued_.front());
    queued_.pop_front();
    return next;
}

void LiveCommands::read_from(Source& source) {
    char text[512];
    const ssize_t n = read(source.fd, text, sizeof text);
    if (n <= 0) {
        if (n == 0 || (errno != EAGAIN && errno != EINTR)) source.fd = -1;  // end of input (a closed pipe, /dev/null): Ctrl-C, q, --seconds stop
        return;
    }
    for (ssize_t i = 0; i < n; ++i) {
        if (source.keys) {  // single keys: r and q act, anything else is ignored
            if (std::strchr("rRqQ", text[i]) != nullptr && text[i] != '\0') parse_line(std::string(1, text[i]));
        } else if (text[i] == '\n') {
            parse_line(source.partial);
            source.partial.clear();
        } else if (source.partial.size() < 4096) {
            source.partial += text[i];
        }
    }
}

void LiveCommands::parse_line(const std::string& line) {
    const std::string command = trimmed(line);
    if (command == "r" || command == "R" || command == "reload") queued_.push_back({LiveCommand::Kind::reload, {}});
    else if (command == "q" || command == "Q" || command == "quit") queued_.push_back({LiveCommand::Kind::quit, {}});
    else if (command.rfind("load ", 0) == 0 && !trimmed(command.substr(5)).empty())
        queued_.push_back({LiveCommand::Kind::load, trimmed(command.substr(5))});
    else if (!command.empty())
        spdlog::warn("unknown command '{}' (r: reload, load PATH: another model, q: stop)", command);
}

}  // namespace forge::app
