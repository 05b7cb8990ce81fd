// `forge nam devices` and the recording step of `forge nam profile`:
//   forge nam devices
//   forge nam profile --out MODEL.nam [--device N | --input-device N --output-device M] [--input-channel C] [train options]
#include "app/cli_checks.h"
#include "app/nam_profile.h"

#include "core/audio/audio_file.h"
#include "core/audio/device.h"
#include "core/audio/round_trip.h"
#include "core/error.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

namespace forge::app {
namespace {

// Bounds of the device flags, far past any audio system's list and any interface's inputs.
constexpr int kMaxDeviceIndex = 4096;
constexpr int kMaxInputChannel = 1024;

constexpr int kCaptureRate = 48000;

// One line redrawn in place on a terminal; elsewhere a line every ten seconds of audio.
class RecordingProgress {
public:
    explicit RecordingProgress(int rate) : rate_(rate), tty_(isatty(fileno(stderr)) != 0) {}

    void operator()(std::size_t done, std::size_t total) {
        const double now = static_cast<double>(done) / rate_, all = static_cast<double>(total) / rate_;
        if (tty_) {
            const int filled = total ? static_cast<int>(30 * done / total) : 30;
            fmt::print(stderr, "\r recording [{:<30}] {:6.1f} / {:.1f} s   ", std::string(static_cast<std::size_t>(filled), '#'),
                       now, all);
            if (done >= total) fmt::print(stderr, "\n");
        } else if (now >= next_report_ || done >= total) {
            fmt::print(stderr, "recording: {:.1f} / {:.1f} s\n", now, all);
            next_report_ = now + 10.0;
        }
    }

private:
    int rate_;
    bool tty_;
    double next_report_ = 0.0;
};

audio::DuplexOptions duplex_options(const DeviceChoice& choice) {
    audio::DuplexOptions options;
    options.input_device = choice.input_device ? choice.input_device : choice.device;
    options.output_device = choice.output_device ? choice.output_device : choice.device;
    options.sample_rate = kCaptureRate;
    options.input_channel = choice.input_channel - 1;
    return options;
}

std::filesystem::path beside(const std::string& out, const char* suffix) {
    std::filesystem::path path(out);
    path.replace_extension(suffix);
    return path;
}

}  // namespace

int print_audio_devices() {
    const audio::AudioSystem system;
    const std::vector<audio::DeviceInfo> devices = system.devices();
    if (devices.empty()) {
        fmt::print("no audio devices found\n");
        return 0;
    }
    fmt::print("{:>3}  {:<40} {:<8} {:>3} {:>3} {:>8}\n", "#", "name", "api", "in", "out", "rate");
    for (const audio::DeviceInfo& d : devices) {
        const std::string mark = std::string(d.default_input ? " default input" : "") + (d.default_output ? " default output" : "");
        fmt::print("{:>3}  {:<40} {:<8} {:>3} {:>3} {:>8.0f}{}\n", d.index, printable(d.name), printable(d.host_api), d.max_input_channels,
                   d.max_output_channels, d.default_sample_rate, mark);
    }
    return 0;
}

void add_device_options(CLI::App* command, DeviceChoice& choice) {
    const CLI::Range device_index(0, kMaxDeviceIndex);
    command->add_option("--device", choice.device, "Audio device for both input and output (forge nam devices lists them)")
        ->check(device_index);
    command->add_option("--input-device", choice.input_device, "Audio device to record from (default: the system's)")
        ->check(device_index);
    command->add_option("--output-device", choice.output_device, "Audio device to play on (default: the system's)")
        ->check(device_index);
    command->add_option("--input-channel", choice.input_channel, "Input channel with the amp's return (default 1)")
        ->check(CLI::Range(1, kMaxInputChannel));
}

std::vector<float> record_capture(const DeviceChoice& choice, std::span<const float> signal, const std::string& out) {
    const audio::AudioSystem system;
    const std::unique_ptr<audio::DuplexDevice> device = system.open_duplex(duplex_options(choice));
    const std::filesystem::path capture_path = beside(out, ".capture.wav"), reamp_path = beside(out, ".reamp.wav");
    audio::write_audio(capture_path, {std::vector<float>(signal.begin(), signal.end()), 1, kCaptureRate},
                       {audio::Container::Wav, audio::SampleFormat::Pcm24});
    spdlog::info("playing the capture signal ({:.1f} s, also written to {}) and recording: {}",
                 static_cast<double>(signal.size()) / kCaptureRate, capture_path.string(), device->description());
    RecordingProgress progress(kCaptureRate);
    const audio::RoundTrip trip =
        audio::record_round_trip(*device, signal, [&](std::size_t done, std::size_t total) { progress(done, total); });
    spdlog::info("round trip through the interface: {:.1f} ms (envelope correlation {:.3f}); recording advanced by {} "
                 "samples",
                 1000.0 * static_cast<double>(trip.estimate.delay) / kCaptureRate, trip.estimate.correlation, trip.advanced);
    audio::write_audio(reamp_path, {trip.recording, 1, kCaptureRate}, {audio::Container::Wav, audio::SampleFormat::Float32});
    spdlog::info("wrote the recording to {} (forge nam train --input {} --output {} trains it again)", reamp_path.string(),
                 capture_path.string(), reamp_path.string());
    return trip.recording;
}

void add_nam_devices_command(CLI::App& nam, CommandTable& commands) {
    CLI::App* cmd = nam.add_subcommand("devices", "List the audio devices forge nam profile can record through");
    commands.add(cmd, [] { return print_audio_devices(); });
}

}  // namespace forge::app
