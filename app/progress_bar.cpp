#include "app/progress_bar.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>

namespace forge::app {
namespace {

constexpr int kBarWidth = 30;

// Enough digits to read a rate of steps (0.52/s) as well as one of tokens (1234/s).
std::string format_rate(double rate) {
    if (rate >= 100.0) return fmt::format("{:.0f}", rate);
    if (rate >= 10.0) return fmt::format("{:.1f}", rate);
    return fmt::format("{:.2f}", rate);
}

}  // namespace

std::string format_duration(double seconds) {
    const auto s = static_cast<long>(seconds + 0.5);
    return s >= 3600 ? fmt::format("{}h{:02}m", s / 3600, s / 60 % 60) : fmt::format("{}m{:02}s", s / 60, s % 60);
}

bool ProgressOutput::stderr_is_terminal() { return isatty(fileno(stderr)) != 0; }

bool ProgressOutput::quiet_logging() { return !spdlog::should_log(spdlog::level::info); }

double ProgressOutput::steady_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

ProgressBar::ProgressBar(std::string label, std::string unit, ProgressOutput output)
    : label_(std::move(label)), unit_(std::move(unit)), output_(std::move(output)), start_(output_.now()),
      last_line_(start_) {}

// "120/1000 steps, loss 2.3456, 0.52 steps/s, ETA 28m10s": the same words on a terminal and in a log.
std::string ProgressBar::counts() const {
    const double rate = static_cast<double>(done_ - first_done_) / std::max(seconds(), 1e-9);
    const double eta = static_cast<double>(total_ - done_) / std::max(rate, 1e-9);
    const std::string then = done_ > first_done_ ? format_duration(eta) : "?";
    return fmt::format("{}/{} {}{}{}, {} {}/s, ETA {}", done_, total_, unit_, status_.empty() ? "" : ", ", status_,
                       format_rate(rate), unit_, then);
}

void ProgressBar::update(std::int64_t done, std::int64_t total, std::string_view status) {
    total_ = std::max<std::int64_t>(total, 1);
    done_ = std::clamp<std::int64_t>(done, 0, total_);
    status_ = status;
    if (output_.quiet) return;
    if (output_.terminal) {
        const auto filled = static_cast<std::size_t>(kBarWidth * done_ / total_);
        const std::string bar = fmt::format("{} [{:<{}}] {}", label_, std::string(filled, '#'), kBarWidth, counts());
        // Padded over what the last drawing left, when this one is shorter.
        fmt::print(output_.stream, "\r{:<{}}", bar, drawn_);
        drawn_ = std::max(drawn_, bar.size());
        std::fflush(output_.stream);
        return;
    }
    const double now = output_.now();
    if (now - last_line_ < kPlainLinePeriod) return;
    last_line_ = now;
    print_plain_line();
}

void ProgressBar::print_plain_line() {
    printed_done_ = done_;
    fmt::print(output_.stream, "{}: {}, {} elapsed\n", label_, counts(), format_duration(seconds()));
    std::fflush(output_.stream);
}

void ProgressBar::clear() {
    if (drawn_ == 0) return;
    fmt::print(output_.stream, "\r{:<{}}\r", "", drawn_);
    drawn_ = 0;
}

void ProgressBar::line(std::string_view text) {
    if (output_.quiet) return;
    clear();
    fmt::print(output_.stream, "{}\n", text);
    std::fflush(output_.stream);
}

void ProgressBar::finish() {
    if (output_.quiet) return;
    if (output_.terminal) {
        if (drawn_ > 0) fmt::print(output_.stream, "\n");
        drawn_ = 0;
        std::fflush(output_.stream);
    } else if (printed_done_ != done_ && done_ > 0) {
        print_plain_line();
    }
}

}  // namespace forge::app
