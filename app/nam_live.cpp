// `forge nam live`: play through a .nam model in real time.
//   forge nam live [MODEL.nam|default] [--input DEV] [--input-channel N] [--output DEV] [--rate HZ]
//                  [--block 64] [--input-gain dB] [--output-gain dB] [--normalize]
//                  [--record DRY.wav WET.wav] [--seconds N] [--control FIFO] [--list-devices]
// The model is built and prewarmed before the stream opens; the audio callback only runs
// LiveEngine::process. This thread drains the engine's rings, draws the status line and, at
// the end (--seconds, Ctrl-C), writes the recordings (atomic writes).
#include "app/cli_checks.h"
#include "app/live_commands.h"
#include "app/live_status.h"
#include "app/nam_live.h"
#include "app/nam_profile.h"
#include "app/signal_flag.h"

#include "core/audio/audio_file.h"
#include "core/audio/live_stream.h"
#include "core/checkpoint/atomic_file.h"
#include "core/error.h"
#include "models/nam/live/live_engine.h"
#include "models/nam/live/live_meters.h"
#include "models/nam/loudness.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <optional>
#include <thread>

namespace forge::app {
namespace {

struct LiveCliOptions {
    std::string model = "default";
    std::string input, output;  // device index or name
    int input_channel = 1;      // of the input device, from 1
    std::string control;        // command FIFO
    std::optional<int> rate;
    int block = 64;
    double input_gain_db = 0.0, output_gain_db = 0.0;
    bool normalize = false;
    bool list_devices = false;
    std::vector<std::string> record;  // DRY.wav WET.wav
    std::optional<double> seconds;
};

// How often the main thread drains the rings (ms); they hold seconds, this is far below.
constexpr int kPollMs = 20;
// A stream that delivers no block for this long has stopped (a server gone): forge never hangs.
constexpr auto kStall = std::chrono::seconds(3);

std::string lowercase(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

// --input / --output: a device index (`forge nam devices` lists them) or a name: the device
// named exactly so (case-insensitive), else the one whose name contains it. Unset: the
// system's default.
std::optional<int> find_device(const std::string& text, const std::vector<audio::DeviceInfo>& devices, bool input) {
    const char* flag = input ? "--input" : "--output";
    if (text.empty()) return std::nullopt;
    if (std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
        const int index = std::stoi(text.size() > 6 ? "-1" : text);
        check(index >= 0 && index < static_cast<int>(devices.size()), "{} {}: no such device (there are {}; {} --list-devices lists them)",
              flag, text, devices.size(), "forge nam live");
        return index;
    }
    const auto usable = [&](const audio::DeviceInfo& d) { return (input ? d.max_input_channels : d.max_output_channels) > 0; };
    std::vector<int> contains;
    for (const audio::DeviceInfo& d : devices) {
        if (!usable(d)) continue;
        if (lowercase(d.name) == lowercase(text)) return d.index;
        if (lowercase(d.name).find(lowercase(text)) != std::string::npos) contains.push_back(d.index);
    }
    check(!contains.empty(), "{} {}: no {} device has that name (forge nam live --list-devices lists them)", flag,
          printable(text), input ? "input" : "output");
    check(contains.size() == 1, "{} {}: {} devices match; give its number or its whole name (forge nam live --list-devices)",
          flag, printable(text), contains.size());
    return contains.front();
}

// The device's rate: --rate, else the model's (a model at another rate is resampled both ways).
int stream_rate(const LiveCliOptions& o, const nam::NamFile& file) {
    return o.rate.value_or(static_cast<int>(std::lround(file.sample_rate.value_or(48000.0))));
}

// The callback PortAudio calls: the engine's process, nothing else.
class EngineCallback final : public audio::BlockCallback {
public:
    explicit EngineCallback(nam::LiveEngine& engine) : engine_(engine) {}
    void process(std::span<const float> in, std::span<float> out, bool dropout) noexcept override {
        engine_.process(in, out, dropout);
    }

private:
    nam::LiveEngine& engine_;
};

// The stream, with a message for a machine without devices that fits this command.
audio::LiveStream open_stream(const audio::AudioSystem& system, const audio::LiveStreamOptions& options,
                              audio::BlockCallback& callback) {
    try {
        return audio::LiveStream(system, options, callback);
    } catch (const audio::NoDeviceError&) {
        throw audio::NoDeviceError("no audio input/output device found: connect an audio interface or start an audio "
                                   "server (JACK), then see forge nam live --list-devices");
    }
}

struct Recording {
    std::vector<float> dry, wet;
};

// The main thread's side of a running stream: everything the callback sent so far.
void drain(nam::LiveEngine& engine, nam::LiveMeters& meters, Recording& recording) {
    std::array<nam::BlockReport, 256> reports;
    for (std::size_t n; (n = engine.drain_reports(reports)) > 0;)
        for (std::size_t i = 0; i < n; ++i) meters.add(reports[i]);
    engine.drain_recording(recording.dry, recording.wet);
    engine.collect_retired();
}

// Reads a model file and swaps it in: the playing one again (`r`: a model retrained meanwhile
// plays at once) or another (`load PATH`), which then becomes the one `r` reloads. The new
// model is built and prewarmed here, off the audio thread. A file that does not load leaves
// the playing model as it is.
void swap_model(const std::string& path, bool reloading, std::string& playing, nam::LiveEngine& engine,
                LiveStatusLine& status) {
    status.finish();
    const char* what = reloading ? "reload" : "load";
    try {
        if (!engine.offer(engine.prepare_model(load_nam_model(path)))) {
            spdlog::warn("{} {}: a model swap is still under way; try again", what, path);
            return;
        }
        spdlog::info("{} {}", reloading ? "reloaded" : "now playing", path);
        playing = path;
    } catch (const std::exception& e) {
        spdlog::error("{} {}: {}; still playing {}", what, path, e.what(), playing);
    }
}

// Runs until --seconds of audio have played, `q`, or Ctrl-C (or SIGTERM); throws if the
// stream stops.
void play(audio::LiveStream& stream, nam::LiveEngine& engine, LiveCommands& commands, nam::LiveMeters& meters,
          Recording& recording, LiveStatusLine& status, const LiveCliOptions& o) {
    SignalFlag interrupt(SIGINT), terminate(SIGTERM);
    std::string playing = o.model;
    using Clock = std::chrono::steady_clock;
    std::uint64_t last_frames = 0;
    auto last_move = Clock::now();
    stream.start();
    while (true) {
        const LiveCommand command = commands.wait(kPollMs);
        if (command.kind == LiveCommand::Kind::quit) break;
        if (command.kind == LiveCommand::Kind::reload) swap_model(playing, true, playing, engine, status);
        if (command.kind == LiveCommand::Kind::load) swap_model(command.path, false, playing, engine, status);
        drain(engine, meters, recording);
        status.update(meters);
        const nam::LiveTotals& t = meters.totals();
        if (o.seconds && t.audio_seconds(meters.sample_rate()) >= *o.seconds) break;
        if (interrupt.take() || terminate.take()) break;
        if (t.frames != last_frames) {
            last_frames = t.frames;
            last_move = Clock::now();
        } else if (Clock::now() - last_move > kStall || !stream.active()) {
            status.finish();
            fail("the audio stream stopped delivering blocks after {:.1f} s (a device removed or the audio server gone)",
                 t.audio_seconds(meters.sample_rate()));
        }
    }
    stream.stop();
    drain(engine, meters, recording);
    status.finish();
}

void report(const nam::LiveMeters& meters, int block, int resampling_frames, double input_latency, double output_latency) {
    const nam::LiveTotals& t = meters.totals();
    const double rate = meters.sample_rate();
    const std::string resampling =
        resampling_frames ? fmt::format(" + resampling {:.2f}", 1e3 * resampling_frames / rate) : std::string();
    spdlog::info("played {:.2f} s ({} blocks, {} frames per block at {} Hz): callback CPU load {:.2f}% mean, {:.2f}% "
                 "worst block; xruns {}; latency {:.2f} ms (input {:.2f} + output {:.2f} + block {:.2f}{})",
                 t.audio_seconds(rate), t.blocks, block, rate, 100.0 * t.cpu_load(rate), 100.0 * t.max_block_load, t.xruns,
                 1e3 * (input_latency + output_latency + (block + resampling_frames) / rate), 1e3 * input_latency,
                 1e3 * output_latency, 1e3 * block / rate, resampling);
    if (t.xruns)
        spdlog::warn("{} blocks had an xrun (the audio system lost samples): a larger --block, or fewer other programs",
                     t.xruns);
}

void write_recording(const LiveCliOptions& o, const Recording& recording, const nam::LiveMeters& meters) {
    if (o.record.empty()) return;
    const int rate = static_cast<int>(meters.sample_rate());
    const audio::WriteFormat format{audio::Container::Wav, audio::SampleFormat::Float32};
    audio::write_audio(o.record[0], {recording.dry, 1, rate}, format);
    audio::write_audio(o.record[1], {recording.wet, 1, rate}, format);
    if (meters.totals().recording_lost)
        spdlog::warn("--record: {} frames were lost (this thread fell behind); both files miss the same frames",
                     meters.totals().recording_lost);
    spdlog::info("wrote {:.2f} s of the dry input to {} and the wet output to {} (forge nam train --input {} --output {})",
                 static_cast<double>(recording.dry.size()) / rate, o.record[0], o.record[1], o.record[0], o.record[1]);
}

int live(const LiveCliOptions& o) {
    if (o.list_devices) return print_audio_devices();
    const nam::NamFile file = load_nam_model(o.model);
    const int rate = stream_rate(o, file);
    if (!o.record.empty()) checkpoint::check_distinct_outputs(o.record[0], o.record[1]);

    nam::LiveOptions options;
    options.render = {{}, o.input_gain_db, o.normalize};
    options.output_gain_db = o.output_gain_db;
    options.max_block = o.block;
    options.record = !o.record.empty();
    options.sample_rate = rate;
    nam::LiveEngine engine(file, options);  // built and prewarmed before any audio flows
    if (engine.resampling())
        spdlog::info("{} expects {} Hz and the device runs at {} Hz: resampling in the callback both ways (libsamplerate, "
                     "fastest sinc), {:.1f} ms more latency plus the filters'", o.model, *file.sample_rate, rate,
                     1e3 * engine.resampling_latency_frames() / rate);
    if (o.normalize && !engine.normalization_gain())
        spdlog::warn("--normalize: {} has no loudness in its metadata; the output is not normalized", o.model);

    LiveCommands commands(o.control);  // a bad --control path fails here, before any device opens
    const audio::AudioSystem system;
    const std::vector<audio::DeviceInfo> devices = system.devices();
    EngineCallback callback(engine);
    audio::LiveStreamOptions stream_options;
    stream_options.input_device = find_device(o.input, devices, true);
    stream_options.output_device = find_device(o.output, devices, false);
    stream_options.input_channel = o.input_channel - 1;
    stream_options.sample_rate = rate;
    stream_options.block = o.block;
    audio::LiveStream stream = open_stream(system, stream_options, callback);
    const double latency_ms =
        1e3 * (stream.input_latency() + stream.output_latency() + (o.block + engine.resampling_latency_frames()) / double(rate));
    spdlog::info("playing {} live at {} Hz, {} frames per block: {}; latency {:.1f} ms; r reloads the model, 'load PATH' (a line{}) plays another, q or Ctrl-C stops", o.model, rate, o.block,
                 stream.description(), latency_ms, o.control.empty() ? " on stdin" : " on stdin or " + o.control);

    nam::LiveMeters meters(rate);
    Recording recording;
    LiveStatusLine status(latency_ms);
    play(stream, engine, commands, meters, recording, status, o);
    report(meters, o.block, engine.resampling_latency_frames(), stream.input_latency(), stream.output_latency());
    write_recording(o, recording, meters);
    return 0;
}

CLI::Validator wav_name() {
    return CLI::Validator(
        [](std::string& name) {
            return lowercase(std::filesystem::path(name).extension().string()) == ".wav" ? std::string()
                                                                                          : name + ": --record writes .wav files";
        },
        "FILE.wav");
}

}  // namespace

void add_nam_live_command(CLI::App& nam, CommandTable& commands) {
    auto o = std::make_shared<LiveCliOptions>();
    CLI::App* cmd = nam.add_subcommand("live", "Play through a .nam model in real time (audio in, the amp, audio out)");
    cmd->add_option("model", o->model, "The .nam model, or 'default' (the bundled one)")->capture_default_str();
    cmd->add_option("--input", o->input, "Input device: number or name (default: the system's)");
    cmd->add_option("--input-channel", o->input_channel, "Which channel of the input device feeds the amp (from 1)")
        ->check(CLI::Range(1, 1024))
        ->capture_default_str();
    cmd->add_option("--output", o->output, "Output device: number or name (default: the system's)");
    cmd->add_option("--rate", o->rate, "Device sample rate in Hz (default: the model's; another is resampled)")
        ->check(CLI::Range(8000, 384000));
    cmd->add_option("--block", o->block, "Frames per callback")->check(CLI::Range(1, 8192))->capture_default_str();
    cmd->add_option("--input-gain", o->input_gain_db, "Gain before the model, in dB")->check(finite_range(-120.0, 120.0))
        ->capture_default_str();
    cmd->add_option("--output-gain", o->output_gain_db, "Gain after the model, in dB")->check(finite_range(-120.0, 120.0))
        ->capture_default_str();
    cmd->add_flag("--normalize", o->normalize, "Scale the output to -18 dB loudness (model metadata), as nam run");
    cmd->add_option("--record", o->record, "Write the dry input and the wet output (32-bit float WAV) at the end")
        ->expected(2)
        ->check(wav_name());
    cmd->add_option("--seconds", o->seconds, "Stop after this many seconds of audio (default: Ctrl-C)")
        ->check(finite_range(0.01, 1e7));
    cmd->add_option("--control", o->control,
                    "A command FIFO (created if absent): lines r (reload), load PATH (another model), q (stop)");
    cmd->add_flag("--list-devices", o->list_devices, "List the audio devices and exit");
    commands.add(cmd, [o] { return live(*o); });
}

}  // namespace forge::app
