// A live audio stream: one input channel (any channel of a multi-channel device) and one or
// two output channels, a callback per block of fixed size, for `forge nam live`. The callback (a BlockCallback) runs on the audio
// system's thread and must not allocate, lock or make a system call; the stream itself only
// hands it PortAudio's buffers (non-interleaved: no copy on the way in) and copies the first
// output channel to the second.
//
// Latency as PortAudio reports it for the opened stream (input + output, in seconds); the
// block adds its own period on top.
#pragma once

#include "core/audio/device.h"

#include <optional>
#include <span>
#include <string>

namespace forge::audio {

class BlockCallback {
public:
    // `in` and `out` have the same length (the block size); `dropout`: the audio system
    // reported an input overflow or an output underflow (an xrun) since the last block.
    virtual void process(std::span<const float> in, std::span<float> out, bool dropout) noexcept = 0;

protected:
    ~BlockCallback() = default;
};

struct LiveStreamOptions {
    std::optional<int> input_device;   // default: the system's default input
    std::optional<int> output_device;  // default: the system's default output
    int input_channel = 0;             // which of the input device's channels (0-based) is played
    int sample_rate = 48000;
    int block = 64;                    // frames per callback
    bool low_latency = true;           // the devices' low suggested latency (else their high, safe one)
};

class LiveStream {
public:
    // Opens the stream (not started); it borrows `system` and `callback`, which must outlive
    // it. Throws NoDeviceError without devices, Error when a device cannot do what is asked.
    LiveStream(const AudioSystem& system, const LiveStreamOptions& options, BlockCallback& callback);
    ~LiveStream();  // stops and closes
    LiveStream(const LiveStream&) = delete;
    LiveStream& operator=(const LiveStream&) = delete;

    void start();
    void stop();
    // False once the stream has stopped by itself (a device gone, a server shut down).
    bool active() const;

    int output_channels() const { return output_channels_; }
    double input_latency() const;   // seconds, as PortAudio reports for this stream
    double output_latency() const;
    std::string description() const;

    // What PortAudio's callback needs: the callback and the input channel it reads.
    struct Route {
        BlockCallback* callback;
        int input_channel;
    };

private:
    void* stream_ = nullptr;  // PaStream
    Route route_;             // PortAudio holds its address: a LiveStream never moves
    int input_device_ = 0, output_device_ = 0, input_channel_ = 0, output_channels_ = 1;
    bool started_ = false;
};

}  // namespace forge::audio
