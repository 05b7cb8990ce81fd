// Rendering audio through a .nam model, as Core's tools/render and `forge nam run` do: the
// input's channels averaged to mono, resampled to the model's rate when the model names
// another, an input gain, the model block by block (Engine, 64 frames as Core's render),
// the output resampled back to the input's rate, and optionally the plugin's "Normalized"
// output gain. What happened along the way comes back as a report for the caller to print.
#pragma once

#include "core/audio/audio_file.h"
#include "models/nam/factory.h"
#include "models/nam/nam_file.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace forge::nam {

// The block size of Core's render loop; with it, an LSTM's prewarm is exactly Core's.
inline constexpr int kRenderBlock = 64;

struct RenderOptions {
    ModelOptions model;
    double input_gain_db = 0.0;
    bool normalize = false;  // the model's loudness brought to kNormalizationTargetDb
};

struct RenderedAudio {
    std::vector<float> samples;          // mono, at the input's rate
    int sample_rate = 0;                 // the input's
    std::optional<double> model_rate;    // set when the input was resampled to the model's rate and back
    double audio_seconds = 0.0;          // of the rendered signal
    double render_seconds = 0.0;         // wall time of the model alone
    // The linear output gain of --normalize; none when not asked or when the model has no
    // loudness (the plugin then plays it as it is, greying the option out).
    std::optional<double> normalization_gain;
};

// `signal` (mono, at `sample_rate`) through the model of `file`; `source` names the signal in
// errors.
RenderedAudio render_audio(const NamFile& file, std::span<const float> signal, int sample_rate,
                           const std::string& source, const RenderOptions& options);

struct RenderedFile {
    RenderedAudio audio;
    int input_channels = 1;  // averaged to mono when more than one
};

// The audio file `input` through the model of `file` (built first: a model that does not load
// fails before any audio is read), written to `output` in `format`.
RenderedFile render_audio_file(const NamFile& file, const std::string& input, const std::string& output,
                               const audio::WriteFormat& format, const RenderOptions& options);

}  // namespace forge::nam
