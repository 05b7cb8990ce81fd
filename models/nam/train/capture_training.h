// From a capture to a .nam model, as `forge nam train` and `forge nam profile` do: the DI
// recognized as a known capture signal (capture_layout.h), the pair checked (data_checks.h),
// the latency calibrated from the blips or given (latency.h), the pair split into training and
// validation (training_data.h), a model of the chosen architecture trained with the
// reference's settings (trainer.h), and the metadata filled in: the gear, the latency, and the
// loudness and gain as the reference trainer's export measures them (loudness.h).
//
// Each stage's findings go to a callback before the next stage runs, so the caller prints
// them as they come (and before a failed check stops the run).
#pragma once

#include "models/nam/train/capture_layout.h"
#include "models/nam/train/data_checks.h"
#include "models/nam/train/latency.h"
#include "models/nam/train/trainer.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

namespace forge::nam::train {

// What the .nam file says about the gear (the reference trainer's metadata fields); an empty
// field is left out.
struct GearMetadata {
    std::string name, modeled_by, gear_make, gear_model, gear_type, tone_type;
};

struct CaptureTrainingOptions {
    std::string architecture = "standard";  // architecture_name.h
    int epochs = 100;
    int batch = 16;
    long ny = 8192;
    std::optional<float> lr;      // default: the architecture's (WaveNet 0.004, LSTM 0.01)
    std::uint64_t seed = 0;
    std::optional<int> latency;   // default: calibrated from the blips
    bool ignore_checks = false;   // train even when the capture fails its checks
    GearMetadata metadata;
};

struct CaptureTrainingCallbacks {
    std::function<void(const CaptureLayout&)> on_layout;
    std::function<void(const DataCheckReport&)> on_checks;
    std::function<void(const LatencyCalibration&)> on_latency;
    TrainCallbacks training;
};

// `di` as played and `reamp` as recorded, both at `rate` (48 kHz; anything else is an error
// naming `input_name`). The result's model carries the metadata.
TrainResult train_on_capture(std::span<const float> di, std::span<const float> reamp, int rate,
                             const std::string& input_name, const CaptureTrainingOptions& options,
                             const CaptureTrainingCallbacks& callbacks = {});

}  // namespace forge::nam::train
