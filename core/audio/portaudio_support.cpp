#include "core/audio/portaudio_support.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace forge::audio {

MutedStderr::MutedStderr() {
    if (std::getenv("FORGE_AUDIO_VERBOSE")) return;
    std::fflush(stderr);
    saved_ = dup(STDERR_FILENO);
    const int null = open("/dev/null", O_WRONLY);
    if (saved_ < 0 || null < 0) {
        if (null >= 0) close(null);
        return;
    }
    dup2(null, STDERR_FILENO);
    close(null);
}

MutedStderr::~MutedStderr() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, STDERR_FILENO);
    close(saved_);
}

void pa_check(PaError error, const char* what) {
    if (error != paNoError) fail("PortAudio: {}: {}", what, Pa_GetErrorText(error));
}

DeviceInfo describe(int index) {
    const PaDeviceInfo* d = Pa_GetDeviceInfo(index);
    const PaHostApiInfo* api = d ? Pa_GetHostApiInfo(d->hostApi) : nullptr;
    DeviceInfo info;
    info.index = index;
    if (!d) return info;
    info.name = d->name ? d->name : "";
    info.host_api = api && api->name ? api->name : "";
    info.max_input_channels = d->maxInputChannels;
    info.max_output_channels = d->maxOutputChannels;
    info.default_sample_rate = d->defaultSampleRate;
    info.default_input = index == Pa_GetDefaultInputDevice();
    info.default_output = index == Pa_GetDefaultOutputDevice();
    return info;
}

// The chosen device, or the default one; NoDeviceError when there is none.
int pick_device(std::optional<int> chosen, PaDeviceIndex fallback, bool input) {
    const char* role = input ? "input" : "output";
    const int count = Pa_GetDeviceCount();
    if (count <= 0) throw NoDeviceError(kNoDeviceMessage);
    if (!chosen) {
        if (fallback == paNoDevice) throw NoDeviceError(kNoDeviceMessage);
        return fallback;
    }
    check(*chosen >= 0 && *chosen < count, "--{}-device {}: no such device (there are {}; forge nam devices lists them)",
          role, *chosen, count);
    const DeviceInfo info = describe(*chosen);
    check((input ? info.max_input_channels : info.max_output_channels) > 0, "--{}-device {} ({}) has no {} channels", role,
          *chosen, info.name, role);
    return *chosen;
}

}  // namespace forge::audio
