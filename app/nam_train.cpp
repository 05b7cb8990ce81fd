// `forge nam train`, `forge nam capture-signal` and `forge nam profile` (also `forge
// nam-profile`): training .nam models on a capture (models/nam/train/).
//   forge nam capture-signal OUT.wav [--short]
//   forge nam train --input DI.wav --output REAMP.wav --out MODEL.nam [--arch standard|lite|feather|nano|lstm[-SIZE]]
//       [--epochs N] [--batch N] [--ny N] [--lr X] [--seed S] [--latency N] [--ignore-checks] [--name ...]
//   forge nam profile [--simulate | --device N ...] --out MODEL.nam [train options]
#include "app/cli_checks.h"
#include "app/commands.h"
#include "app/nam_profile.h"
#include "app/progress_bar.h"
#include "app/training_run.h"
#include "core/audio/audio_file.h"
#include "core/checkpoint/atomic_file.h"
#include "core/error.h"
#include "models/nam/nam_writer.h"
#include "models/nam/train/amp_sim.h"
#include "models/nam/train/architecture_name.h"
#include "models/nam/train/capture_signal.h"
#include "models/nam/train/capture_training.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <optional>

namespace forge::app {
namespace {

// --latency at most one second of the 48 kHz capture either way: an interface's round trip is
// milliseconds, and a latency past the capture's length leaves nothing to train on.
constexpr int kMaxLatency = 48000;

using namespace forge::nam::train;

struct TrainCli {
    std::string input, output, out;
    CaptureTrainingOptions training;
    bool simulate = false, short_signal = false;
    DeviceChoice devices;  // profile without --simulate
    bool epochs_given = false;
};

// Training's progress on the one progress bar (app/progress_bar.h), counting steps over all
// epochs; each epoch's report as a line of its own.
class Progress {
public:
    void step(const StepProgress& p) {
        bar_.update((p.epoch - 1) * p.steps + p.step, p.epochs * p.steps,
                    fmt::format("epoch {}/{}, loss {:.5f}", p.epoch, p.epochs, p.loss));
    }
    void epoch(const EpochReport& e) {
        bar_.line(fmt::format("epoch {}/{}: train loss {:.6f}, validation ESR {:.5f}{} (best {:.5f}), lr {:.5f}, {:.1f}s",
                              e.epoch, e.epochs, e.train_loss, e.validation_esr, e.improved ? " *" : "", e.best_esr, e.lr,
                              bar_.seconds()));
    }
    double seconds() const { return bar_.seconds(); }

private:
    ProgressBar bar_{"nam train", "steps"};
};

std::vector<float> read_mono(const std::string& path, int& rate) {
    const audio::Audio a = audio::read_audio(path);
    if (a.channels != 1) spdlog::warn("{}: {} channels; using their mean", path, a.channels);
    rate = a.sample_rate;
    return audio::channel_of(a, a.channels == 1 ? 0 : -1);
}

void print_checks(const DataCheckReport& report) {
    for (const DataCheck& c : report.checks) {
        const char* separator = c.message.empty() ? "" : ": ";
        if (c.passed)
            spdlog::info("check {}: passed{}{}", c.name, separator, c.message);
        else
            spdlog::error("check {}: FAILED{}{}", c.name, separator, c.message);
    }
}

void print_latency(const LatencyCalibration& cal, std::optional<int> given) {
    if (cal.recommended) spdlog::info("latency from the blips: {} samples (recommended {})", *cal.delay, *cal.recommended);
    if (!cal.warning.empty()) spdlog::warn("latency calibration: {}", cal.warning);
    if (given) spdlog::info("latency given: {} samples", *given);
}

int train_capture(const TrainCli& o, std::span<const float> di, std::span<const float> reamp, int rate) {
    if (!o.epochs_given)
        spdlog::info("nam train: {} epochs (the default length; --epochs N sets it)", o.training.epochs);
    Progress progress;
    CtrlCStopsTraining ctrl_c;  // no resume: the model trained so far is written as at the end
    const TrainResult result = train_on_capture(
        di, reamp, rate, o.input.empty() ? "the input" : o.input, o.training,
        {[](const CaptureLayout& layout) { spdlog::info("capture layout: {}", layout.name); }, print_checks,
         [&](const LatencyCalibration& cal) { print_latency(cal, o.training.latency); },
         {[&](const StepProgress& p) { progress.step(p); }, [&](const EpochReport& e) { progress.epoch(e); },
          [&] { return ctrl_c.requested(); }}});
    nam::write_nam_file(o.out, result.model);
    if (result.interrupted_at_epoch > 0)
        spdlog::warn("interrupted in epoch {} of {}: {} has the best weights so far", result.interrupted_at_epoch,
                     o.training.epochs, o.out);
    fmt::print(stderr, "validation ESR {:.5f} (epoch {}): {}\n", result.validation_esr, result.best_epoch,
               esr_quality(result.validation_esr));
    fmt::print("{}\n", o.out);
    const bool lstm = parse_architecture(o.training.architecture).architecture == Architecture::Lstm;
    spdlog::info("wrote {} ({} architecture '{}', {:.1f}s)", o.out, lstm ? "LSTM" : "WaveNet", o.training.architecture,
                 progress.seconds());
    return 0;
}

int train(const TrainCli& o) {
    checkpoint::check_not_an_input(o.out, {o.input, o.output});  // before hours of training, not after
    int rate_in = 0, rate_out = 0;
    const std::vector<float> di = read_mono(o.input, rate_in), reamp = read_mono(o.output, rate_out);
    check(rate_in == rate_out, "{} is {} Hz but {} is {} Hz: record at the input's rate", o.input, rate_in, o.output, rate_out);
    return train_capture(o, di, reamp, rate_in);
}

int capture_signal_command(const TrainCli& o) {
    const CaptureSize size = o.short_signal ? CaptureSize::Short : CaptureSize::Full;
    const std::vector<float> signal = capture_signal(size);
    audio::write_audio(o.out, {signal, 1, 48000}, {audio::Container::Wav, audio::SampleFormat::Pcm24});
    spdlog::info("wrote {} ({} s, layout {})", o.out, signal.size() / 48000.0, capture_layout(size).name);
    return 0;
}

int profile(const TrainCli& o) {
    const CaptureSize size = o.short_signal ? CaptureSize::Short : CaptureSize::Full;
    const std::vector<float> di = capture_signal(size);
    std::vector<float> reamp;
    if (o.simulate) {
        spdlog::info("reamping the capture signal through the simulated amp");
        reamp = simulate_amp(di);
    } else {
        reamp = record_capture(o.devices, di, o.out);  // through the audio interface (nam_profile.cpp)
    }
    return train_capture(o, di, reamp, 48000);
}

void add_train_options(CLI::App* cmd, TrainCli& cli) {
    CaptureTrainingOptions& o = cli.training;
    GearMetadata& gear = o.metadata;
    cmd->add_option("--out", cli.out, "The .nam file to write")->required();
    cmd->add_option("--arch", o.architecture,
                    "standard | lite | feather | nano (WaveNets), lstm (= lstm-standard) | lstm-lite | lstm-feather | "
                    "lstm-nano (the reference presets)")
        ->check(CLI::IsMember(architecture_names()));
    auto* epochs = cmd->add_option("--epochs", o.epochs, "Epochs (default 100)")->check(CLI::Range(1, 100000));
    cmd->callback([&cli, epochs] { cli.epochs_given = epochs->count() > 0; });
    cmd->add_option("--batch", o.batch, "Windows per batch (default 16)")->check(CLI::Range(1, 4096));
    cmd->add_option("--lr", o.lr, "Adam learning rate (default 0.004; LSTM 0.01)")->check(positive_finite(kMaxLearningRate));
    cmd->add_option("--ny", o.ny, "Outputs per training window (default 8192; smaller: more steps per epoch)")
        ->check(CLI::Range(64L, 1L << 20));
    cmd->add_option("--seed", o.seed, "Seed of the weights and the shuffling");
    cmd->add_option("--latency", o.latency, "Latency in samples (default: calibrated from the blips)")
        ->check(CLI::Range(-kMaxLatency, kMaxLatency));
    cmd->add_flag("--ignore-checks", o.ignore_checks, "Train even if the capture fails its checks");
    cmd->add_option("--name", gear.name, "Metadata: model name");
    cmd->add_option("--modeled-by", gear.modeled_by, "Metadata: who captured it");
    cmd->add_option("--gear-make", gear.gear_make, "Metadata: gear make");
    cmd->add_option("--gear-model", gear.gear_model, "Metadata: gear model");
    cmd->add_option("--gear-type", gear.gear_type, "Metadata: amp, pedal, amp_cab, ...");
    cmd->add_option("--tone-type", gear.tone_type, "Metadata: clean, crunch, hi_gain, fuzz, ...");
}

CLI::App* add_profile(CLI::App& parent, const std::string& name, TrainCli& o) {
    CLI::App* cmd = parent.add_subcommand(name, "Capture an amp in one step: play and record the capture signal, train, export");
    add_train_options(cmd, o);
    cmd->add_flag("--simulate", o.simulate, "Reamp through the built-in reference amp instead of an audio device");
    cmd->add_flag("--short", o.short_signal, "The short capture signal (tests, demos)");
    add_device_options(cmd, o.devices);
    return cmd;
}

}  // namespace

void add_nam_train_commands(CLI::App& forge, CLI::App& nam, CommandTable& commands) {
    auto o = std::make_shared<TrainCli>();
    CLI::App* train_cmd = nam.add_subcommand("train", "Train a .nam model on a DI / reamp pair of the capture signal");
    train_cmd->add_option("--input", o->input, "DI: the capture signal as played")->required()->check(input_file());
    train_cmd->add_option("--output", o->output, "The reamped recording")->required()->check(input_file());
    add_train_options(train_cmd, *o);
    commands.add(train_cmd, [o] { return train(*o); });

    CLI::App* signal_cmd = nam.add_subcommand("capture-signal", "Write forge's standardized capture signal (48 kHz WAV)");
    signal_cmd->add_option("out", o->out, "The WAV file to write")->required();
    signal_cmd->add_flag("--short", o->short_signal, "The short variant (tests, demos)");
    commands.add(signal_cmd, [o] { return capture_signal_command(*o); });

    commands.add(add_profile(nam, "profile", *o), [o] { return profile(*o); });
    // `forge nam-profile`, the one-step spelling, works but is not listed: --help shows the
    // command once, as `nam profile`.
    CLI::App* one_step = add_profile(forge, "nam-profile", *o);
    one_step->group("");
    commands.add(one_step, [o] { return profile(*o); });
}

}  // namespace forge::app
