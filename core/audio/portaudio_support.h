// What the PortAudio streams of core/audio (device.cpp: play and record; live_stream.cpp: a
// live callback) share: muting the audio stacks' probing noise, error checks, the device
// list and the choice of a device. Only those files include it (it includes portaudio.h).
#pragma once

#include "core/audio/device.h"

#include <portaudio.h>

#include <optional>

namespace forge::audio {

// While it lives, file descriptor 2 points at /dev/null: ALSA and JACK print dozens of lines
// of probing errors when PortAudio enumerates devices, which would bury forge's one clear
// message. FORGE_AUDIO_VERBOSE=1 keeps them (for diagnosing a device that does not show up).
class MutedStderr {
public:
    MutedStderr();
    ~MutedStderr();
    MutedStderr(const MutedStderr&) = delete;
    MutedStderr& operator=(const MutedStderr&) = delete;

private:
    int saved_ = -1;
};

// Throws Error("PortAudio: what: PortAudio's message") unless `error` is paNoError.
void pa_check(PaError error, const char* what);

// Flags that mean the input and output sample clocks no longer line up sample for sample.
inline constexpr PaStreamCallbackFlags kDropouts =
    paInputUnderflow | paInputOverflow | paOutputUnderflow | paOutputOverflow;

DeviceInfo describe(int index);

// The chosen device, or the default one; NoDeviceError when there is none.
int pick_device(std::optional<int> chosen, PaDeviceIndex fallback, bool input);

}  // namespace forge::audio
