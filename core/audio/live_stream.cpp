#include "core/audio/live_stream.h"

#include "core/audio/portaudio_support.h"

#include <algorithm>

namespace forge::audio {
namespace {

int live_callback(const void* input, void* output, unsigned long frames, const PaStreamCallbackTimeInfo*,
                  PaStreamCallbackFlags flags, void* user) {
    const auto& route = *static_cast<const LiveStream::Route*>(user);
    // Non-interleaved: one buffer per channel. The input is opened up to the channel played
    // (the others are ignored); the output has one or two channels.
    const auto* in = static_cast<const float* const*>(input)[route.input_channel];
    float* const* out = static_cast<float* const*>(output);
    route.callback->process({in, frames}, {out[0], frames}, (flags & kDropouts) != 0);
    return paContinue;
}

// Stereo output: the second channel gets the first's samples.
int live_callback_stereo(const void* input, void* output, unsigned long frames, const PaStreamCallbackTimeInfo* time,
                         PaStreamCallbackFlags flags, void* user) {
    live_callback(input, output, frames, time, flags, user);
    float* const* out = static_cast<float* const*>(output);
    std::copy(out[0], out[0] + frames, out[1]);
    return paContinue;
}

PaStreamParameters parameters(int device, int channels, bool input, bool low_latency) {
    const PaDeviceInfo* d = Pa_GetDeviceInfo(device);
    PaStreamParameters p{};
    p.device = device;
    p.channelCount = channels;
    p.sampleFormat = paFloat32 | paNonInterleaved;
    if (input) p.suggestedLatency = low_latency ? d->defaultLowInputLatency : d->defaultHighInputLatency;
    else p.suggestedLatency = low_latency ? d->defaultLowOutputLatency : d->defaultHighOutputLatency;
    return p;
}

}  // namespace

LiveStream::LiveStream(const AudioSystem&, const LiveStreamOptions& options, BlockCallback& callback)
    : route_{&callback, options.input_channel} {
    input_device_ = pick_device(options.input_device, Pa_GetDefaultInputDevice(), true);
    output_device_ = pick_device(options.output_device, Pa_GetDefaultOutputDevice(), false);
    input_channel_ = options.input_channel;
    const int input_channels = describe(input_device_).max_input_channels;
    check(input_channel_ >= 0 && input_channel_ < input_channels, "input channel {}: {} has {} input channel{}",
          input_channel_ + 1, describe(input_device_).name, input_channels, input_channels == 1 ? "" : "s");
    // Stereo out when the output device has two channels (the same signal on both), else mono.
    output_channels_ = std::min(2, describe(output_device_).max_output_channels);
    const PaStreamParameters in = parameters(input_device_, input_channel_ + 1, true, options.low_latency);
    const PaStreamParameters out = parameters(output_device_, output_channels_, false, options.low_latency);
    const MutedStderr muted;
    const PaError supported = Pa_IsFormatSupported(&in, &out, options.sample_rate);
    check(supported == paFormatIsSupported, "{} / {} cannot play {} in, {} out at {} Hz, 32-bit float ({}): choose "
                                            "other devices or set the interface to {} Hz",
          describe(input_device_).name, describe(output_device_).name,
          input_channel_ == 0 ? std::string("mono") : fmt::format("{} channels", input_channel_ + 1),
          output_channels_ == 2 ? "stereo" : "mono",
          options.sample_rate, Pa_GetErrorText(supported), options.sample_rate);
    pa_check(Pa_OpenStream(&stream_, &in, &out, options.sample_rate, static_cast<unsigned long>(options.block),
                           paClipOff | paDitherOff, output_channels_ == 2 ? live_callback_stereo : live_callback,
                           &route_),
             "opening the live stream");
}

LiveStream::~LiveStream() {
    const MutedStderr muted;
    if (started_) Pa_StopStream(stream_);
    Pa_CloseStream(stream_);
}

void LiveStream::start() {
    pa_check(Pa_StartStream(stream_), "starting the live stream");
    started_ = true;
}

void LiveStream::stop() {
    if (!started_) return;
    started_ = false;
    pa_check(Pa_StopStream(stream_), "stopping the live stream");
}

bool LiveStream::active() const { return Pa_IsStreamActive(stream_) == 1; }

double LiveStream::input_latency() const {
    const PaStreamInfo* info = Pa_GetStreamInfo(stream_);
    return info ? info->inputLatency : 0.0;
}

double LiveStream::output_latency() const {
    const PaStreamInfo* info = Pa_GetStreamInfo(stream_);
    return info ? info->outputLatency : 0.0;
}

std::string LiveStream::description() const {
    const DeviceInfo in = describe(input_device_), out = describe(output_device_);
    return fmt::format("input {} ({}, {}, channel {}), output {} ({}, {}, {})", in.index, in.name, in.host_api,
                       input_channel_ + 1, out.index, out.name, out.host_api, output_channels_ == 2 ? "stereo" : "mono");
}

}  // namespace forge::audio
