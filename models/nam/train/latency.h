// Latency calibration from the capture's blips, as the reference trainer does
// (nam/train/core.py, _calibrate_latency_v_all, algorithm version 1): average the output
// around every blip (1 000 samples before to 10 000 after), find the first sample whose
// magnitude rises above the background level of a silent stretch, and subtract a safety
// factor of one sample, so that the model never has to predict the future.
#pragma once

#include "models/nam/train/capture_layout.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace forge::nam::train {

struct LatencyCalibration {
    std::optional<int> delay;        // samples from blip to response; none if nothing triggered
    std::optional<int> recommended;  // delay - safety factor
    std::string warning;             // empty, or why the result may be wrong
};

LatencyCalibration calibrate_latency(std::span<const float> output, const CaptureLayout& layout);

}  // namespace forge::nam::train
