#include "app/live_status.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <unistd.h>

namespace forge::app {
namespace {

std::string level(double dbfs) { return std::isfinite(dbfs) ? fmt::format("{:6.1f}", dbfs) : "  -inf"; }

}  // namespace

LiveStatusLine::LiveStatusLine(double latency_ms) : latency_ms_(latency_ms), tty_(isatty(fileno(stderr)) != 0) {}

void LiveStatusLine::update(nam::LiveMeters& meters) {
    if (meters.window_seconds() < (tty_ ? 0.25 : 1.0)) return;
    const nam::MeterWindow w = meters.take_window();
    const std::string line =
        fmt::format("in {} dBFS  out {} dBFS  cpu {:5.1f}%  xruns {}  latency {:.1f} ms", level(w.input_peak_dbfs),
                    level(w.output_peak_dbfs), 100.0 * w.cpu_load, meters.totals().xruns, latency_ms_);
    if (tty_) fmt::print(stderr, "\r{}   ", line);
    else fmt::print(stderr, "{}\n", line);
    drawn_ = true;
}

void LiveStatusLine::finish() {
    if (tty_ && drawn_) fmt::print(stderr, "\n");
    drawn_ = false;
}

}  // namespace forge::app
