// A model's loudness and gain, the two numbers the reference trainer writes into a .nam's
// metadata (neural-amp-modeler, nam/models/base.py: _metadata_loudness, _metadata_gain), and
// the NAM plugin's output normalization that uses the loudness.
//
// - loudness: the RMS, in dB, of the model's whole output for a standard one-second input
//   (the model starts from silence, as the trainer's zero padding and Core's prewarm do);
// - gain: how much the model compresses, between 0 and 1. The standard input is played at
//   0, 0.1, ..., 1.0 of its level; a linear model's output RMS grows like a ramp (gain 0),
//   a model that clips everything to one level like a step (gain 1). With y_k the RMS at
//   level k/10: (Σ y_k - 5.5 y_10) / (11 y_10 - 5.5 y_10), clipped to [0, 1].
//
// The trainer's standard input is a 48 kHz recording that forge does not ship; forge's is
// synthesized (`standard_loudness_input`: one second of strummed, plucked chords at the same
// RMS, -15 dBFS), so forge's numbers are on the same scale but not identical to the
// trainer's. `measure_loudness` takes any input, so the trainer's file reproduces its
// numbers (forge nam info --loudness-input FILE).
#pragma once

#include "models/nam/nam_file.h"

#include <cmath>
#include <optional>
#include <span>
#include <vector>

namespace forge::nam {

// The plugin's "Normalized" output mode (NeuralAmpModelerPlugin, _SetOutputGain).
inline constexpr double kNormalizationTargetDb = -18.0;

// A level in dB as an amplitude factor: 10^(dB / 20).
inline double amplitude_of_db(double db) { return std::pow(10.0, db / 20.0); }

// One second at 48 kHz, RMS 10^(-15/20); the same samples on every call.
std::vector<float> standard_loudness_input();

struct Loudness {
    double loudness_db = 0.0;
    double gain = 0.0;
};

// Renders `input` through the model at the 11 levels. An input at another rate than the
// model's is the caller's business (both standard inputs are 48 kHz).
Loudness measure_loudness(const NamFile& file, std::span<const float> input);

// Sets metadata.loudness and metadata.gain from the standard input.
void add_loudness_metadata(NamFile& file);

// The output gain (linear) of --normalize: 10^((-18 - loudness) / 20), or none for a model
// without a loudness (the plugin then leaves the output as it is).
std::optional<double> normalization_gain(const Metadata& metadata);

}  // namespace forge::nam
