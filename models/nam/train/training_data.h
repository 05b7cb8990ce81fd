// From a capture (DI input, reamped output, layout, latency) to aligned training and
// validation signals, and the training windows the reference trainer draws from them
// (nam/data.py, Dataset): with latency d the output is shifted left by d (y[t + d] answers
// x[t]); each window is receptive_field + ny - 1 input samples and the ny outputs whose
// history it holds.
#pragma once

#include "models/nam/train/capture_layout.h"

#include <span>
#include <vector>

namespace forge::nam::train {

struct Segment {
    std::vector<float> x, y;  // same length
};

struct TrainingData {
    Segment train, validation;
};

TrainingData split_capture(std::span<const float> input, std::span<const float> output, const CaptureLayout& layout,
                           int latency);

// Start offsets of the non-overlapping windows of `segment` for this receptive field and ny.
std::vector<long> window_starts(const Segment& segment, long receptive_field, long ny);

}  // namespace forge::nam::train
