// Sample-rate conversion of a mono signal through libsamplerate (SRC_SINC_BEST_QUALITY).
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace forge::audio {

// The rates resample() converts between: 1 kHz (no speech or guitar signal is recorded below
// it) to 768 kHz (the highest an audio interface records). A header is free to claim 1 Hz,
// and converting that to 16 kHz asked for 16 000 output samples per input sample: 32 KB of
// file became 1 GB of output before libsamplerate refused the ratio.
inline constexpr double kMinSampleRate = 1000.0;
inline constexpr double kMaxSampleRate = 768000.0;
// libsamplerate's own bound on the ratio either way (SRC_MAX_RATIO).
inline constexpr double kMaxResampleRatio = 256.0;

// `input` at `from_rate` Hz, converted to `to_rate` Hz. Rates outside the range above, a ratio
// past libsamplerate's, or an output over kMaxSamples (audio_file.h) are refused before
// anything is allocated, in an error that starts with `source` (the file the signal is from).
std::vector<float> resample(std::span<const float> input, double from_rate, double to_rate, std::string_view source);

}  // namespace forge::audio
