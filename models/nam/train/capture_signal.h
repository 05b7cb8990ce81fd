// forge's standardized capture signal (`forge nam capture-signal`), 48 kHz mono, laid out on
// the reference trainer's v3 skeleton so that its ESRs compare with NAM's (docs/NAM.md):
//
//   validation clip · 1 s silence · 2 s blips (+0.5 s, +1.5 s) · sine sweeps at three levels
//   · white noise at three levels · training material · 0.5 s silence · validation clip again
//
// The music is synthesized (plucked strings by Karplus-Strong, chords, palm mutes, noise
// swells) from fixed seeds, so the same call always gives the same samples and train can
// recognize the file by regenerating it.
#pragma once

#include "models/nam/train/capture_layout.h"

#include <vector>

namespace forge::nam::train {

enum class CaptureSize { Full, Short };

CaptureLayout capture_layout(CaptureSize size);
std::vector<float> capture_signal(CaptureSize size);

}  // namespace forge::nam::train
