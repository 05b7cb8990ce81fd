// Where everything is in a standardized capture signal, and recognizing which one a DI file
// is.
//
// Two families are known:
// - forge's own capture signal (capture_signal.h), full and short (for tests): recognized by
//   regenerating it and comparing samples;
// - the reference trainer's v3 input (v3_0_0.wav; nam/train/core.py, _V3_DATA_INFO):
//   recognized by its structure, since forge does not ship it: 48 kHz, its 9 s validation
//   clip repeated at the very end, silence between the first clip and the blips.
//
// Both share the v3 skeleton: validation clip at 0, 1 s of silence, 2 s with blips at +0.5 s
// and +1.5 s, training material, silence, the validation clip again at the end.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace forge::nam::train {

struct CaptureLayout {
    std::string name;          // "forge-1", "forge-1-short", "nam-v3"
    int rate = 48000;
    long length = 0;           // samples of the whole signal
    long validation_length = 0;
    long blips_start = 0, blips_length = 0;
    std::vector<long> blips;   // absolute sample positions
    long noise_begin = 0, noise_end = 0;  // background (silent input) interval for the blip trigger
    long train_begin = 0, train_end = 0;
    long validation_begin = 0;            // of the second (final) validation clip
    double pre_silence_seconds = 0.4;     // input silence required before each split
};

// None recognized: an empty name.
CaptureLayout recognize_capture(std::span<const float> input, int rate);

}  // namespace forge::nam::train
