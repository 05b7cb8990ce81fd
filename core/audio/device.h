// Audio devices: play a signal on an output while recording an input (full duplex), for
// `forge nam profile`. This is forge's one boundary with the operating system's audio stack;
// the rest of the program sees the `DuplexDevice` interface, which tests replace with a
// double (a simulated amp) so the record-and-align flow runs without hardware.
//
// The implementation is PortAudio (device.cpp): `AudioSystem` holds Pa_Initialize /
// Pa_Terminate, a stream lives only inside `play_and_record`, and the stream callback only
// copies between preallocated buffers and publishes its position through atomics (no
// allocation, no lock). ALSA and JACK print pages of probing noise on stderr while PortAudio
// initializes; that stream is muted while they do.
#pragma once

#include "core/error.h"

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace forge::audio {

// No usable input or output device: the message says what to do instead.
class NoDeviceError : public Error {
public:
    using Error::Error;
};

struct DeviceInfo {
    int index = 0;             // what --device / --input-device / --output-device take
    std::string name;
    std::string host_api;      // ALSA, JACK, ...
    int max_input_channels = 0;
    int max_output_channels = 0;
    double default_sample_rate = 0.0;
    bool default_input = false;
    bool default_output = false;
};

// Called on the caller's thread while a duplex run is in progress: frames done of total.
using ProgressFn = std::function<void(std::size_t done, std::size_t total)>;

// Something that plays one signal and records what comes back at the same time, sample
// clock locked: recorded[i] was captured while played[i] went out (plus the round trip).
class DuplexDevice {
public:
    virtual ~DuplexDevice() = default;
    virtual int sample_rate() const = 0;
    virtual std::string description() const = 0;
    // `recorded` has the size of `played`. Throws if the device stops delivering samples.
    virtual void play_and_record(std::span<const float> played, std::span<float> recorded, const ProgressFn& progress) = 0;
};

struct DuplexOptions {
    std::optional<int> input_device;   // default: the system's default input
    std::optional<int> output_device;  // default: the system's default output
    int sample_rate = 48000;
    int input_channel = 0;             // which input channel is the amp's return
};

// The audio stack for as long as this object lives (Pa_Initialize .. Pa_Terminate).
class AudioSystem {
public:
    AudioSystem();
    ~AudioSystem();
    AudioSystem(const AudioSystem&) = delete;
    AudioSystem& operator=(const AudioSystem&) = delete;

    std::vector<DeviceInfo> devices() const;
    // The device borrows this system: it must not outlive it. Throws NoDeviceError when there is no usable input or output, Error when a chosen
    // device cannot do what is asked (channels, rate).
    std::unique_ptr<DuplexDevice> open_duplex(const DuplexOptions& options) const;
};

// The message for a machine without audio devices.
inline constexpr const char* kNoDeviceMessage =
    "no audio input/output device found; use --simulate or record the capture signal yourself and run forge nam train";

}  // namespace forge::audio
