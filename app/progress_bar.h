// Progress of long work on stderr: on a terminal a bar redrawn in place with the rate and the
// time left; otherwise (logs, CI) a plain line at every tenth of the way, so a log keeps a
// readable record without thousands of lines.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

namespace forge::app {

class ProgressBar {
public:
    ProgressBar(std::string label, std::int64_t total, std::string unit)
        : label_(std::move(label)), unit_(std::move(unit)), total_(std::max<std::int64_t>(total, 1)),
          tty_(isatty(fileno(stderr)) != 0), start_(Clock::now()) {}

    void update(std::int64_t done) {
        const double elapsed = seconds();
        const double rate = static_cast<double>(done) / std::max(elapsed, 1e-9);
        const double eta = static_cast<double>(total_ - done) / std::max(rate, 1e-9);
        if (tty_) {
            const auto filled = static_cast<std::size_t>(30 * std::clamp<std::int64_t>(done, 0, total_) / total_);
            fmt::print(stderr, "\r{} [{:<30}] {}/{} {:.0f} {}/s ETA {:.0f}s   ", label_, std::string(filled, '#'), done,
                       total_, rate, unit_, eta);
            return;
        }
        const std::int64_t tenth = 10 * done / total_;
        if (tenth <= last_tenth_) return;
        last_tenth_ = tenth;
        fmt::print(stderr, "{}: {}/{} {} ({:.0f} {}/s, {:.1f}s)\n", label_, done, total_, unit_, rate, unit_, elapsed);
    }

    // Ends the bar's line on a terminal.
    void finish() {
        if (tty_) fmt::print(stderr, "\n");
    }

    double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

private:
    using Clock = std::chrono::steady_clock;
    std::string label_, unit_;
    std::int64_t total_;
    bool tty_;
    std::int64_t last_tenth_ = 0;
    Clock::time_point start_;
};

}  // namespace forge::app
