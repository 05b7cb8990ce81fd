// A model at its own sample rate behind an audio device at another (a 48 kHz capture on a
// 44.1 kHz interface): each device block is resampled to the model's rate, processed,
// resampled back (core/audio/stream_resampler.h, libsamplerate's fastest sinc) and queued;
// every callback takes exactly its frames from the queue. The two resamplers' output counts
// vary by a frame or two from block to block, so the queue starts with latency_frames() of
// silence and never runs dry after the start. Everything is allocated in the constructor; process() allocates
// nothing.
#pragma once

#include "core/audio/stream_resampler.h"

#include <algorithm>
#include <span>
#include <vector>

namespace forge::nam {

class RateBridge {
public:
    RateBridge(double device_rate, double model_rate, int max_device_block);

    // The most model-rate frames one device block becomes.
    int max_model_block() const { return static_cast<int>(model_in_.size()); }
    // The delay the bridge adds, in device frames: the queue's head start (libsamplerate's
    // sinc filters compensate their own delay; live_engine_test measures it).
    int latency_frames() const { return latency_; }
    // Device frames the queue had to make up with silence after its start (0 in steady state).
    long underflow_frames() const { return underflow_; }

    // `model(in, out)` processes model-rate frames, in.size() <= max_model_block().
    template <typename Model>
    void process(std::span<const float> in, std::span<float> out, Model&& model) noexcept {
        const std::size_t m = to_model_.process(in, model_in_);
        model(std::span<const float>(model_in_.data(), m), std::span<float>(model_out_.data(), m));
        const std::size_t k = to_device_.process(std::span<const float>(model_out_.data(), m), back_);
        enqueue(std::span<const float>(back_.data(), k));
        dequeue(out);
    }

private:
    void enqueue(std::span<const float> frames) noexcept;
    void dequeue(std::span<float> out) noexcept;

    audio::StreamResampler to_model_, to_device_;
    std::vector<float> model_in_, model_out_, back_;
    std::vector<float> queue_;  // device-rate frames waiting to be played, oldest first
    std::size_t queued_;
    int latency_;
    long underflow_ = 0;
};

}  // namespace forge::nam
