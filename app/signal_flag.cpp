#include "app/signal_flag.h"

#include "core/error.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>

namespace forge::app {

namespace {

std::array<std::atomic<bool>, NSIG> raised{};
static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler may only touch lock-free atomics");

void raise_flag(int signal_number) { raised[static_cast<std::size_t>(signal_number)].store(true); }

}  // namespace

SignalFlag::SignalFlag(int signal_number, Again again) : signal_(signal_number) {
    check(signal_number > 0 && signal_number < NSIG, "no signal number {}", signal_number);
    raised[static_cast<std::size_t>(signal_)].store(false);
    struct sigaction action {};
    action.sa_handler = raise_flag;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: a blocked read() returns EINTR
    if (again == Again::default_action) action.sa_flags |= SA_RESETHAND;  // the first signal restores SIG_DFL
    if (sigaction(signal_, &action, &previous_) != 0) {
        fail("cannot install a handler for signal {}: {}", signal_, std::strerror(errno));
    }
}

SignalFlag::~SignalFlag() { sigaction(signal_, &previous_, nullptr); }

bool SignalFlag::take() { return raised[static_cast<std::size_t>(signal_)].exchange(false); }

}  // namespace forge::app
