// A signal as a request the program answers when it is ready, instead of an interruption:
// while a SignalFlag lives, the signal only raises a flag (SIGINT, Ctrl-C, stops an answer
// being generated instead of killing forge; SIGWINCH says the terminal changed size).
//
// The handler is installed without SA_RESTART, so a blocking read() returns EINTR and the
// reader can look at the flag at once. The flag is a lock-free atomic, the one kind of shared
// state a signal handler may touch.
#pragma once

#include <csignal>

namespace forge::app {

class SignalFlag {
public:
    // What a second signal does while the flag lives: raise the flag again, or what it did
    // before (Ctrl-C a second time ends a training run at once instead of waiting for its step).
    enum class Again { raises_flag, default_action };

    explicit SignalFlag(int signal_number, Again again = Again::raises_flag);
    ~SignalFlag();  // the previous handler is back
    SignalFlag(const SignalFlag&) = delete;
    SignalFlag& operator=(const SignalFlag&) = delete;

    bool take();  // whether the signal came since the last take(), and lower the flag
    void clear() { take(); }

private:
    int signal_;
    struct sigaction previous_ {};
};

}  // namespace forge::app
