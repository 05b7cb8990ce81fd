// A .nam file: the JSON document the Neural Amp Modeler trainer exports and
// NeuralAmpModelerCore plays. Fields: version, architecture, config, weights (one flat list
// of floats, consumed in the order the architecture defines), sample_rate (absent before
// 0.5.1), metadata (loudness, gain, levels in dBu, training report; all optional).
#pragma once

#include "core/audio/resample.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace forge::nam {

// File versions Core accepts (NAM/get_dsp.h): 0.5.0 to 0.7.0 fully; a later 0.7.x loads with
// a "partially supported" warning; anything else is rejected.
inline constexpr std::string_view kEarliestVersion = "0.5.0";
inline constexpr std::string_view kLatestVersion = "0.7.0";

// What a .nam file may hold. Real files nest JSON under 15 levels (a SlimmableContainer of
// WaveNets with a condition DSP) and use rates from 8 kHz to 192 kHz.
inline constexpr int kMaxJsonDepth = 64;
inline constexpr double kMinSampleRate = audio::kMinSampleRate;  // the rates forge resamples
inline constexpr double kMaxSampleRate = audio::kMaxSampleRate;

enum class VersionSupport { Full, Partial, None };
VersionSupport version_support(std::string_view version);

struct Metadata {
    std::optional<double> loudness;          // dB, of the model's response to the standard signal
    std::optional<double> gain;              // trainer's gain estimate
    std::optional<double> input_level_dbu;   // dBu of a 0 dBFS input at capture time
    std::optional<double> output_level_dbu;
    std::optional<double> validation_esr;    // metadata.training.validation_esr
    std::optional<int> latency;              // metadata.training.data.latency (samples)
    nlohmann::json raw = nlohmann::json::object();  // everything, as read (name, gear, date, ...)
};

struct NamFile {
    std::string source;        // the file name (or another label), used in error messages
    std::string version;
    bool partially_supported = false;  // a 0.7.x later than kLatestVersion: load but warn
    std::string architecture;
    nlohmann::json config;
    std::vector<float> weights;
    std::optional<double> sample_rate;  // absent: unknown (Core reports -1)
    Metadata metadata;
};

// Parse a .nam document (the root object, or a nested submodel). `source` names it in errors.
NamFile parse_nam(const nlohmann::json& document, const std::string& source);

// Read and parse a .nam file; malformed JSON is a FormatError naming the file and position.
NamFile read_nam_file(const std::filesystem::path& path);

}  // namespace forge::nam
