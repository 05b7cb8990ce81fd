// Progress of long work on stderr, the same for every long command (train gpt|sft|asr|tokenizer,
// nam train): on a terminal a bar redrawn in place with the counts, the caller's status (a loss,
// a throughput), the rate and the time left; otherwise (logs, CI) the same as a plain line at most
// every kPlainLinePeriod seconds, so a log shows the run is alive without thousands of lines.
// A report of its own (an epoch's, an evaluation's) goes through line(), which clears the bar
// first so the two never share a line. Under --quiet (warnings and errors only) it prints nothing.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

namespace forge::app {

// "42m07s", "3h05m": a duration as a person reads it.
std::string format_duration(double seconds);

// Where the bar goes and what time it is: stderr and the steady clock, or a test's stream and clock.
struct ProgressOutput {
    std::FILE* stream = stderr;
    bool terminal = stderr_is_terminal();
    std::function<double()> now = steady_seconds;  // seconds since any fixed moment
    bool quiet = quiet_logging();                   // --quiet: no bar, no lines

    static bool stderr_is_terminal();
    static double steady_seconds();
    static bool quiet_logging();  // spdlog's level is above info
};

class ProgressBar {
public:
    // Seconds between the plain lines when stderr is not a terminal.
    static constexpr double kPlainLinePeriod = 10.0;

    // `unit` names what update() counts ("steps", "tokens", "clips").
    ProgressBar(std::string label, std::string unit, ProgressOutput output = {});

    // The rate counts from `done` (a resumed run's first step), not from 0.
    void start_from(std::int64_t done) { first_done_ = done; }
    // `done` of `total`, with the caller's status ("loss 2.3456, 1234 tok/s") after the counts.
    void update(std::int64_t done, std::int64_t total, std::string_view status = {});
    // A line of its own (no trailing newline needed).
    void line(std::string_view text);
    // Ends the bar's line on a terminal; otherwise prints the last counts if no line has yet.
    void finish();

    double seconds() const { return output_.now() - start_; }

private:
    std::string counts() const;
    void print_plain_line();
    void clear();

    std::string label_, unit_;
    ProgressOutput output_;
    double start_;
    double last_line_;              // when the last plain line was printed
    std::int64_t first_done_ = 0;
    std::int64_t done_ = 0, total_ = 1, printed_done_ = -1;
    std::string status_;
    std::size_t drawn_ = 0;         // characters of the bar on the terminal now
};

}  // namespace forge::app
