// The interface every NAM architecture implements (WaveNet, LSTM, ConvNet, Linear,
// SlimmableContainer), as NeuralAmpModelerCore's nam::DSP: a streaming processor of blocks of
// at most max_frames frames, whose state carries from block to block.
//
// prepare() is the only place that allocates; process() must never allocate, lock or make a
// system call, because it runs on an audio thread (test/models/nam/engine_alloc_test.cpp
// checks this).
#pragma once

#include "models/nam/signal.h"

#include <string>

namespace forge::nam {

class Model {
public:
    virtual ~Model() = default;

    virtual int in_channels() const { return 1; }
    virtual int out_channels() const { return 1; }

    // Size every buffer for blocks of up to max_frames and clear the state (silence history,
    // initial LSTM state). Allocates.
    virtual void prepare(int max_frames) = 0;

    // Process `frames` (<= max_frames) frames: in has in_channels() rows, out out_channels().
    virtual void process(ConstSignal in, Signal out, int frames) noexcept = 0;

    // How many zero samples settle the state after prepare() (Core's GetPrewarmSamples()).
    virtual long prewarm_samples() const = 0;

    // A one-line summary for `forge nam info`.
    virtual std::string describe() const = 0;
};

}  // namespace forge::nam
