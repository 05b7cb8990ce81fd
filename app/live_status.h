// The status line of `forge nam live`: input and output peaks (dBFS), the callback's CPU load,
// xruns and latency. On a terminal one line redrawn in place four times a second; elsewhere
// (a log, a pipe) a plain line every second.
#pragma once

#include "models/nam/live/live_meters.h"

namespace forge::app {

class LiveStatusLine {
public:
    explicit LiveStatusLine(double latency_ms);

    // Prints when the meters' window is long enough, and starts a new window.
    void update(nam::LiveMeters& meters);
    // Ends the redrawn line (a terminal) so that what follows starts on its own.
    void finish();

private:
    double latency_ms_;
    bool tty_;
    bool drawn_ = false;
};

}  // namespace forge::app
