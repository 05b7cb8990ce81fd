// The main thread's view of a live run, built from the callback's BlockReports: peak meters
// and CPU load over the current window (what the status line shows), and totals for the
// summary at the end.
//
// The callback's CPU load is the time spent in the callback over the audio time it produced
// (the block period): 100 % means the model only just keeps up.
#pragma once

#include "models/nam/live/block_report.h"

#include <cstdint>

namespace forge::nam {

// Amplitude in dBFS; silence is -inf.
double dbfs(double amplitude);

struct MeterWindow {
    double input_peak_dbfs = 0.0, output_peak_dbfs = 0.0;
    double cpu_load = 0.0;  // mean over the window, 0..1 (can exceed 1 when it cannot keep up)
    double audio_seconds = 0.0;
};

struct LiveTotals {
    std::uint64_t frames = 0, blocks = 0;
    std::uint64_t xruns = 0;            // blocks the audio system flagged
    std::uint64_t recording_lost = 0;   // frames the recording lost to a full ring
    double busy_seconds = 0.0;
    double max_block_load = 0.0;        // the worst single block's time over its period
    double cpu_load(double rate) const;  // mean over the whole run: busy / audio time
    double audio_seconds(double rate) const { return static_cast<double>(frames) / rate; }
};

class LiveMeters {
public:
    explicit LiveMeters(double sample_rate) : rate_(sample_rate) {}

    void add(const BlockReport& report);

    // The window since the last take_window(), then a new one starts.
    MeterWindow take_window();
    double window_seconds() const { return static_cast<double>(window_frames_) / rate_; }

    const LiveTotals& totals() const { return totals_; }
    double sample_rate() const { return rate_; }

private:
    double rate_;
    LiveTotals totals_;
    float window_input_peak_ = 0.0f, window_output_peak_ = 0.0f;
    double window_busy_ = 0.0;
    std::uint64_t window_frames_ = 0;
};

}  // namespace forge::nam
