#include "core/audio/device.h"

#include "core/audio/portaudio_support.h"

#include <portaudio.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace forge::audio {
namespace {

// What the stream callback and the waiting thread share. The callback only copies between
// the preallocated spans and publishes its position; the waiting thread only reads.
struct DuplexState {
    std::span<const float> played;
    std::span<float> recorded;
    int input_channels = 1;
    int output_channels = 1;
    int input_channel = 0;
    std::atomic<std::size_t> position{0};
    std::atomic<PaStreamCallbackFlags> flags{0};
};

int duplex_callback(const void* input, void* output, unsigned long frames, const PaStreamCallbackTimeInfo*,
                    PaStreamCallbackFlags flags, void* user) {
    auto& state = *static_cast<DuplexState*>(user);
    if (flags & kDropouts) state.flags.fetch_or(flags & kDropouts, std::memory_order_relaxed);
    const std::size_t position = state.position.load(std::memory_order_relaxed);
    const std::size_t n = std::min<std::size_t>(frames, state.played.size() - position);
    const auto* in = static_cast<const float*>(input);
    auto* out = static_cast<float*>(output);
    const auto in_stride = static_cast<std::size_t>(state.input_channels);
    const auto out_stride = static_cast<std::size_t>(state.output_channels);
    for (std::size_t i = 0; i < n; ++i) {
        state.recorded[position + i] = in ? in[i * in_stride + static_cast<std::size_t>(state.input_channel)] : 0.0f;
        for (std::size_t c = 0; c < out_stride; ++c) out[i * out_stride + c] = state.played[position + i];
    }
    std::fill(out + n * out_stride, out + frames * out_stride, 0.0f);
    state.position.store(position + n, std::memory_order_release);
    return position + n >= state.played.size() ? paComplete : paContinue;
}

// An open PortAudio stream, closed when it goes out of scope.
class Stream {
public:
    Stream(const PaStreamParameters& in, const PaStreamParameters& out, double rate, DuplexState& state) {
        const MutedStderr muted;
        pa_check(Pa_OpenStream(&stream_, &in, &out, rate, paFramesPerBufferUnspecified, paClipOff, duplex_callback, &state),
                 "opening the duplex stream");
    }
    ~Stream() {
        const MutedStderr muted;
        Pa_CloseStream(stream_);
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    PaStream* get() const { return stream_; }

private:
    PaStream* stream_ = nullptr;
};

class PortAudioDuplex final : public DuplexDevice {
public:
    PortAudioDuplex(int input, int output, const DuplexOptions& options) : options_(options) {
        input_ = params(input, std::max(1, options.input_channel + 1), true);
        output_ = params(output, 1, false);
        check(options.input_channel < describe(input).max_input_channels, "input channel {}: {} has {} input channels",
              options.input_channel + 1, describe(input).name, describe(input).max_input_channels);
        // Many hardware devices only open in stereo: fall back to two output channels (the
        // same signal on both) and as many input channels as the device insists on.
        if (!supported()) output_.channelCount = std::min(2, describe(output).max_output_channels);
        if (!supported()) input_.channelCount = std::min(std::max(2, input_.channelCount), describe(input).max_input_channels);
        check(supported(), "{} / {} cannot record and play at {} Hz, 32-bit float: choose other devices or set the "
                           "interface to {} Hz", describe(input).name, describe(output).name, options.sample_rate,
              options.sample_rate);
    }

    int sample_rate() const override { return options_.sample_rate; }

    std::string description() const override {
        return fmt::format("input {} ({}), output {} ({})", input_.device, describe(input_.device).name, output_.device,
                           describe(output_.device).name);
    }

    void play_and_record(std::span<const float> played, std::span<float> recorded, const ProgressFn& progress) override {
        check(recorded.size() == played.size(), "play_and_record: {} recorded frames for {} played", recorded.size(),
              played.size());
        DuplexState state;
        state.played = played;
        state.recorded = recorded;
        state.input_channels = input_.channelCount;
        state.output_channels = output_.channelCount;
        state.input_channel = options_.input_channel;
        Stream stream(input_, output_, options_.sample_rate, state);
        pa_check(Pa_StartStream(stream.get()), "starting the stream");
        wait_until_done(stream, state, progress);
        const PaStreamCallbackFlags flags = state.flags.load();
        check((flags & kDropouts) == 0, "samples were lost while recording ({}{}): the recording no longer lines up with "
                                        "the signal; close other audio programs and try again",
              (flags & (paInputOverflow | paInputUnderflow)) ? "input overrun " : "",
              (flags & (paOutputUnderflow | paOutputOverflow)) ? "output underrun" : "");
    }

private:
    PaStreamParameters params(int device, int channels, bool input) const {
        const PaDeviceInfo* d = Pa_GetDeviceInfo(device);
        PaStreamParameters p{};
        p.device = device;
        p.channelCount = channels;
        p.sampleFormat = paFloat32;
        // The high (safe) latency: glitches would ruin a capture, and the round trip is
        // measured and removed afterwards anyway.
        p.suggestedLatency = input ? d->defaultHighInputLatency : d->defaultHighOutputLatency;
        return p;
    }

    bool supported() const {
        const MutedStderr muted;
        return Pa_IsFormatSupported(&input_, &output_, options_.sample_rate) == paFormatIsSupported;
    }

    // Polls the stream's position ten times a second. A stream whose position stops moving
    // for kStall is given up on (a device unplugged, a server gone), so forge never hangs.
    static void wait_until_done(Stream& stream, DuplexState& state, const ProgressFn& progress) {
        using Clock = std::chrono::steady_clock;
        constexpr auto kStall = std::chrono::seconds(3);
        const std::size_t total = state.played.size();
        std::size_t last = 0;
        auto last_move = Clock::now();
        while (true) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            const std::size_t position = state.position.load(std::memory_order_acquire);
            if (progress) progress(position, total);
            const PaError active = Pa_IsStreamActive(stream.get());
            if (active == 0) break;
            if (active < 0) pa_check(active, "while recording");
            if (position != last) {
                last = position;
                last_move = Clock::now();
            } else if (Clock::now() - last_move > kStall) {
                Pa_AbortStream(stream.get());
                if (position >= total) return;  // done; only the final buffers did not drain
                fail("the audio device stopped after {} of {} samples (no progress for 3 s)", position, total);
            }
        }
        Pa_StopStream(stream.get());
        const std::size_t position = state.position.load(std::memory_order_acquire);
        check(position >= total, "the audio stream ended after {} of {} samples", position, total);
    }

    DuplexOptions options_;
    PaStreamParameters input_{}, output_{};
};

}  // namespace

AudioSystem::AudioSystem() {
    PaError error;
    {
        const MutedStderr muted;
        error = Pa_Initialize();
    }
    if (error != paNoError)
        throw NoDeviceError(fmt::format("PortAudio could not start ({}): {}", Pa_GetErrorText(error), kNoDeviceMessage));
}

AudioSystem::~AudioSystem() {
    const MutedStderr muted;
    Pa_Terminate();
}

std::vector<DeviceInfo> AudioSystem::devices() const {
    std::vector<DeviceInfo> list;
    for (int i = 0; i < Pa_GetDeviceCount(); ++i) list.push_back(describe(i));
    return list;
}

std::unique_ptr<DuplexDevice> AudioSystem::open_duplex(const DuplexOptions& options) const {
    check(options.input_channel >= 0, "input channel {}: channels count from 1", options.input_channel + 1);
    const int input = pick_device(options.input_device, Pa_GetDefaultInputDevice(), true);
    const int output = pick_device(options.output_device, Pa_GetDefaultOutputDevice(), false);
    return std::make_unique<PortAudioDuplex>(input, output, options);
}

}  // namespace forge::audio
