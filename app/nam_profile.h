// `forge nam profile` through an audio interface, and `forge nam devices`: the part of the
// profile flow that talks to hardware (core/audio/device.h). nam_train.cpp runs the rest
// (capture signal, training, export) the same way for a recording and for --simulate.
#pragma once

#include "app/commands.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace forge::app {

struct DeviceChoice {
    std::optional<int> device;         // --device: both directions
    std::optional<int> input_device;   // --input-device
    std::optional<int> output_device;  // --output-device
    int input_channel = 1;             // --input-channel, counted from 1
};

void add_device_options(CLI::App* command, DeviceChoice& choice);

// Plays `signal` (48 kHz) on the chosen output while recording the chosen input, with a
// progress line, and returns the recording aligned to the signal. The signal and the
// recording are also written next to `out` (OUT.capture.wav, OUT.reamp.wav) so the capture
// can be trained again with forge nam train. Throws audio::NoDeviceError without devices.
std::vector<float> record_capture(const DeviceChoice& choice, std::span<const float> signal, const std::string& out);

// `forge nam devices`, and its table of devices (also `forge nam live --list-devices`).
int print_audio_devices();
void add_nam_devices_command(CLI::App& nam, CommandTable& commands);

}  // namespace forge::app
