#include "models/nam/live/live_meters.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace forge::nam {

double dbfs(double amplitude) {
    return amplitude > 0.0 ? 20.0 * std::log10(amplitude) : -std::numeric_limits<double>::infinity();
}

double LiveTotals::cpu_load(double rate) const { return frames ? busy_seconds / audio_seconds(rate) : 0.0; }

void LiveMeters::add(const BlockReport& report) {
    if (report.frames == 0) return;
    const double period = report.frames / rate_;
    totals_.frames += report.frames;
    totals_.blocks += 1;
    totals_.xruns += report.dropout ? 1 : 0;
    totals_.recording_lost += report.recording_lost;
    totals_.busy_seconds += report.busy_seconds;
    totals_.max_block_load = std::max(totals_.max_block_load, report.busy_seconds / period);
    window_input_peak_ = std::max(window_input_peak_, report.input_peak);
    window_output_peak_ = std::max(window_output_peak_, report.output_peak);
    window_busy_ += report.busy_seconds;
    window_frames_ += report.frames;
}

MeterWindow LiveMeters::take_window() {
    MeterWindow w;
    w.input_peak_dbfs = dbfs(window_input_peak_);
    w.output_peak_dbfs = dbfs(window_output_peak_);
    w.audio_seconds = window_seconds();
    w.cpu_load = w.audio_seconds > 0.0 ? window_busy_ / w.audio_seconds : 0.0;
    window_input_peak_ = window_output_peak_ = 0.0f;
    window_busy_ = 0.0;
    window_frames_ = 0;
    return w;
}

}  // namespace forge::nam
