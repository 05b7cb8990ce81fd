// The real-time engine: one mono NAM model behind a block interface with a maximum block
// size fixed up front. The constructor (and reset()) allocate and prewarm; process() then
// allocates nothing, takes no lock and makes no system call, so it can run on an audio
// thread.
//
// Prewarm as Core's DSP::prewarm (NAM/dsp.cpp): ceil(P / max_block) blocks of max_block
// zeros, P = the model's prewarm_samples(), outputs discarded. For WaveNet any count of at
// least the receptive field reaches the same steady state; for LSTM the count matters, and
// with max_block 64 it is exactly Core's render (24 000 samples at 48 kHz).
#pragma once

#include "models/nam/model.h"

#include <memory>
#include <span>
#include <vector>

namespace forge::nam {

// The longest prewarm forge runs (Core runs whatever the model asks): 87 s at 48 kHz. Real
// models ask for under half a second; a hostile file could otherwise ask for hours.
inline constexpr long kMaxPrewarmSamples = 1L << 22;

class Engine {
public:
    Engine(std::unique_ptr<Model> model, int max_block);

    // Clear the state and prewarm again. Allocates.
    void reset();

    // out[i] = model(in[i]) for in.size() <= max_block() frames; out.size() == in.size().
    void process(std::span<const float> in, std::span<float> out) noexcept;

    int max_block() const { return max_block_; }
    const Model& model() const { return *model_; }

private:
    std::unique_ptr<Model> model_;
    int max_block_;
    std::vector<float> silence_, discard_;
};

// Offline rendering: the whole input through the engine in blocks of max_block(), one output
// sample per input sample (Core's tools/render loop).
std::vector<float> render(Engine& engine, std::span<const float> input);

}  // namespace forge::nam
