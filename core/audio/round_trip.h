// Recording a signal's round trip through a duplex device (an amp between an interface's
// output and input) and lining the recording up with the signal.
//
// An interface adds its own delay (buffers, converters: typically 5-50 ms, up to a few
// hundred on a busy desktop). The recording is made a little longer than the signal so a
// late response is not cut off; the delay is measured by cross-correlating the two signals'
// loudness envelopes (1 ms frames, in dB), which survive an amp's distortion and compression
// where a sample-level correlation would not. The recording is then advanced by that delay
// less a small margin, so that what remains is a short, positive latency that the trainer's
// blip calibration measures exactly (it looks for the response after each blip).
#pragma once

#include "core/audio/device.h"

#include <span>
#include <vector>

namespace forge::audio {

struct RoundTripOptions {
    double max_delay_seconds = 0.5;  // longest round trip searched (and extra recording time)
    int hop = 48;                    // envelope frame, samples (1 ms at 48 kHz)
    int margin_hops = 3;             // left in the recording so the response still follows the signal
};

struct DelayEstimate {
    long delay = 0;            // samples, a multiple of the hop
    double correlation = 0.0;  // normalized envelope correlation at that delay, in [-1, 1]
};

// The lag (0 .. max_delay) at which `recorded` best follows `played`, by envelopes.
DelayEstimate estimate_delay(std::span<const float> played, std::span<const float> recorded, long max_delay, int hop);

struct RoundTrip {
    std::vector<float> recording;  // as long as the signal, advanced by `advanced` samples
    long advanced = 0;
    DelayEstimate estimate;
};

// Plays `signal` (then silence for max_delay) on `device` while recording, and aligns the
// recording as described above. Throws when the recording is silent or does not follow the
// signal (nothing connected, wrong input).
RoundTrip record_round_trip(DuplexDevice& device, std::span<const float> signal, const ProgressFn& progress,
                            const RoundTripOptions& options = {});

// The alignment alone, on a recording of signal + silence.
RoundTrip align_round_trip(std::span<const float> signal, std::span<const float> recording,
                           const RoundTripOptions& options, int sample_rate);

}  // namespace forge::audio
