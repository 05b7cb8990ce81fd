// What the live engine's audio callback tells the main thread about each block it processed:
// sent through a lock-free ring (core/spsc_ring.h), read by LiveMeters.
#pragma once

#include <cstdint>

namespace forge::nam {

struct BlockReport {
    std::uint32_t frames = 0;
    float input_peak = 0.0f;         // max |x| of the dry input, before the input gain
    float output_peak = 0.0f;        // max |y| of what went to the output
    float busy_seconds = 0.0f;       // wall time spent in the callback
    bool dropout = false;            // the audio system reported an over- or underrun (xrun)
    std::uint32_t recording_lost = 0;  // frames the recording ring had no room for
};

// A frame of the --record pair: the dry input (before the input gain) and the wet output.
struct RecordedFrame {
    float dry = 0.0f;
    float wet = 0.0f;
};

}  // namespace forge::nam
