// What forge transcribe and forge bench transcribe share: speech input (a file, or "-" for WAV on stdin) as mono at the model's rate, and
// the --decoder flag.
#pragma once

#include "models/asr/transcriber.h"

#include <string>
#include <vector>

namespace forge::app {

// The samples of `source` ("-": all of stdin), channels averaged, resampled to `sample_rate`.
std::vector<float> read_speech(const std::string& source, int sample_rate);

// The --decoder flag: auto, ctc, transducer.
asr::DecoderChoice parse_decoder(const std::string& name);

}  // namespace forge::app
