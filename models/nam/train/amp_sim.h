// A built-in reference amplifier for `forge nam profile --simulate`: something to capture on
// a machine without audio hardware, so the whole profile flow runs (and is tested) anywhere.
//
//   input -> pre-EQ (high-pass 120 Hz, +6 dB mid hump at 800 Hz)
//         -> asymmetric tube-like waveshaper tanh(drive·x + bias) - tanh(bias)
//         -> tone stack (bass shelf, mid scoop, treble shelf) -> speaker-ish low-pass 5 kHz
//         -> output level, a fixed latency (like an interface's round trip)
//
// The bias makes positive and negative half-waves clip differently, as a single-ended tube
// stage does, which gives even harmonics.
#pragma once

#include <span>
#include <vector>

namespace forge::nam::train {

struct AmpSimOptions {
    double sample_rate = 48000.0;
    double drive = 3.5;
    double bias = 0.35;
    double output_level = 0.5;
    int latency = 37;  // samples
};

std::vector<float> simulate_amp(std::span<const float> input, const AmpSimOptions& options = {});

}  // namespace forge::nam::train
