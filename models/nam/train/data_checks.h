// The data checks of the standardized-capture workflow (reference: nam/train/core.py
// _check_v3, and nam/data.py's pre-silence requirement), each with a message that says what
// is wrong and what to do:
//
// - lengths: the output covers the input (after the latency); a longer output is trimmed;
// - replicate ESR: the two validation clips of the output agree (ESR < 0.01), i.e. the rig
//   was stable and the output is not noise-dominated;
// - silence before splits: the input is silent for 0.4 s before the training and validation
//   segments, so neither segment hears the tail of the previous one;
// - clipping: the output never reaches full scale (the interface clipped the capture).
#pragma once

#include "models/nam/train/capture_layout.h"

#include <span>
#include <string>
#include <vector>

namespace forge::nam::train {

struct DataCheck {
    std::string name;
    bool passed = true;
    std::string message;  // why it failed (or a note)
};

struct DataCheckReport {
    std::vector<DataCheck> checks;
    double replicate_esr = 0.0;
    bool passed() const;
};

DataCheckReport check_capture(std::span<const float> input, std::span<const float> output, const CaptureLayout& layout);

}  // namespace forge::nam::train
