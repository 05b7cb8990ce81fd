// `forge nam`: Neural Amp Modeler models.
//   forge nam run MODEL.nam IN.wav OUT.wav [--input-gain dB] [--normalize] [--slim X] [--format F] [--fast-tanh]
//   forge nam run [default] IN.wav OUT.wav   (the bundled model, a profile of the simulated amp)
//   forge nam info MODEL.nam [--loudness-input WAV]     (MODEL "default": the bundled model, here and in bench)
//   forge nam bench MODEL.nam [--block 64] [--seconds 2] [--json]
#include "app/bench_suites.h"
#include "app/cli_checks.h"
#include "app/bundled_models.h"
#include "app/commands.h"
#include "app/timing.h"
#include "app/nam_live.h"
#include "app/nam_profile.h"
#include "core/audio/audio_file.h"
#include "core/checkpoint/atomic_file.h"
#include "core/error.h"
#include "models/nam/audio_render.h"
#include "models/nam/engine.h"
#include "models/nam/factory.h"
#include "models/nam/loudness.h"
#include "models/nam/nam_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>

namespace forge::app {
namespace {

struct NamOptions {
    std::string model, input, output, format, loudness_input;
    double input_gain_db = 0.0;
    bool normalize = false;
    bool fast_tanh = false;
    std::optional<double> slim;
    int block = 64;
    double seconds = 2.0;
    bool json = false;
};

// The model argument of run, info and bench: a .nam file, or "default" for the bundled one.
std::string model_path(const std::string& model) { return resolve_model(model, kBundledAmpModel); }

// The container of nam run's output follows its extension, .wav or .flac: any other name
// (OUT.mp3) would get a WAV under that name, so it is a usage error that names the file.
void check_output_name(const std::string& output) {
    std::string extension = std::filesystem::path(output).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (extension != ".wav" && extension != ".flac")
        throw CLI::ValidationError("output", fmt::format("{}: forge writes .wav or .flac files, not {}", output,
                                                         extension.empty() ? "a name without an extension" : extension));
}

// `forge nam run IN OUT` means `forge nam run default IN OUT`.
NamOptions with_model_resolved(NamOptions o) {
    if (o.output.empty()) {
        o.output = o.input;
        o.input = o.model;
        o.model = "default";
    }
    o.model = model_path(o.model);
    check(std::filesystem::exists(o.input), "{}: no such audio file", o.input);
    return o;
}

nam::NamFile load(const std::string& path) {
    nam::NamFile file = nam::read_nam_file(path);
    if (file.partially_supported)
        spdlog::warn("{}: version {} is newer than {}; loading with partial support (as Core does)", path,
                     file.version, nam::kLatestVersion);
    return file;
}

}  // namespace

nam::NamFile load_nam_model(const std::string& model) { return load(model_path(model)); }

namespace {

nam::ModelOptions model_options(const NamOptions& o, const nam::NamFile& file) {
    if (o.slim && !nam::is_slimmable(file)) fail("--slim: {} is not a slimmable model", o.model);
    return {{o.fast_tanh}, o.slim};
}

// The output's format: --format, else float WAV or 24-bit FLAC by the output's extension.
audio::WriteFormat write_format(const NamOptions& o) {
    audio::WriteFormat format{audio::container_for(o.output),
                              o.format.empty() ? audio::SampleFormat::Float32 : audio::parse_sample_format(o.format)};
    if (format.container == audio::Container::Flac && o.format.empty()) format.sample = audio::SampleFormat::Pcm24;
    return format;
}

void report_render(const NamOptions& o, const nam::NamFile& file, const nam::RenderedFile& r) {
    const nam::RenderedAudio& a = r.audio;
    if (r.input_channels != 1) spdlog::warn("{}: {} channels; rendering their mean", o.input, r.input_channels);
    if (a.model_rate)
        spdlog::warn("{} is {} Hz but the model expects {} Hz: resampling the input (libsamplerate), and the output "
                     "back to {} Hz", o.input, a.sample_rate, *a.model_rate, a.sample_rate);
    spdlog::info("rendered {:.2f} s of audio in {:.3f} s: {:.1f}x real time", a.audio_seconds, a.render_seconds,
                 a.audio_seconds / std::max(a.render_seconds, 1e-9));
    if (o.normalize && a.normalization_gain)
        spdlog::info("--normalize: loudness {:.2f} dB -> {} dB: output gain {:+.2f} dB", *file.metadata.loudness,
                     nam::kNormalizationTargetDb, nam::kNormalizationTargetDb - *file.metadata.loudness);
    else if (o.normalize)
        spdlog::warn("--normalize: {} has no loudness in its metadata; the output is not normalized", o.model);
    spdlog::info("wrote {} samples to {}", a.samples.size(), o.output);
}

int run(const NamOptions& options) {
    const NamOptions o = with_model_resolved(options);
    checkpoint::check_not_an_input(o.output, {o.model, o.input});
    const nam::NamFile file = load(o.model);
    const nam::RenderedFile rendered = nam::render_audio_file(
        file, o.input, o.output, write_format(o), {model_options(o, file), o.input_gain_db, o.normalize});
    report_render(o, file, rendered);
    return 0;
}

std::string optional_text(const std::optional<double>& v, const char* unit) {
    return v ? fmt::format("{:.4g}{}", *v, unit) : "-";
}

int info(const NamOptions& options) {
    NamOptions o = options;
    o.model = model_path(o.model);
    const nam::NamFile file = load(o.model);
    const auto model = nam::make_model(file, {{o.fast_tanh}, o.slim});
    const auto& m = file.metadata;
    fmt::print("file:          {}\n", printable(o.model));
    fmt::print("version:       {}\n", printable(file.version));
    fmt::print("architecture:  {}\n", printable(model->describe()));
    fmt::print("weights:       {}\n", file.weights.size());
    fmt::print("sample rate:   {}\n", file.sample_rate ? fmt::format("{} Hz", *file.sample_rate) : "unknown");
    fmt::print("prewarm:       {} samples\n", model->prewarm_samples());
    fmt::print("slimmable:     {}\n", nam::is_slimmable(file) ? "yes (--slim 0..1)" : "no");
    fmt::print("loudness:      {}\n", optional_text(m.loudness, " dB"));
    fmt::print("gain:          {}\n", optional_text(m.gain, ""));
    fmt::print("input level:   {}\n", optional_text(m.input_level_dbu, " dBu"));
    fmt::print("output level:  {}\n", optional_text(m.output_level_dbu, " dBu"));
    fmt::print("validation ESR:{}\n", " " + optional_text(m.validation_esr, ""));
    if (!o.loudness_input.empty()) {
        // The trainer's loudness and gain, measured on a given standard input (e.g. the
        // reference trainer's loudness_input.wav) instead of forge's.
        const audio::Audio a = audio::read_audio(o.loudness_input);
        const nam::Loudness l = nam::measure_loudness(file, audio::channel_of(a, a.channels == 1 ? 0 : -1));
        fmt::print("measured:      loudness {:.6f} dB, gain {:.6f} (input {})\n", l.loudness_db, l.gain, o.loudness_input);
    }
    for (const char* key : {"name", "modeled_by", "gear_type", "gear_make", "gear_model", "tone_type"})
        if (m.raw.contains(key) && m.raw[key].is_string())
            fmt::print("{:<15}{}\n", std::string(key) + ":", printable(m.raw[key].get<std::string>()));
    return 0;
}

// The model rendering a sine, one block at a time: a warm-up of a tenth of the blocks, then
// `reps` timed runs of `o.seconds` of audio each.
struct NamTiming {
    std::string model;
    double rate = 0;
    long blocks = 0;                // per repetition
    std::vector<double> seconds;    // per repetition
};

NamTiming time_model(const NamOptions& options, int reps) {
    NamOptions o = options;
    o.model = model_path(o.model);
    const nam::NamFile file = load(o.model);
    nam::Engine engine(nam::make_model(file, model_options(o, file)), o.block);
    NamTiming t{o.model, file.sample_rate.value_or(48000.0), 0, {}};
    t.blocks = static_cast<long>(std::ceil(o.seconds * t.rate / o.block));
    std::vector<float> in(static_cast<std::size_t>(o.block)), out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = 0.1f * std::sin(0.05f * static_cast<float>(i));
    for (long b = 0; b < t.blocks / 10 + 1; ++b) engine.process(in, out);  // warm up
    for (int rep = 0; rep < reps; ++rep) {
        const auto start = std::chrono::steady_clock::now();
        for (long b = 0; b < t.blocks; ++b) engine.process(in, out);
        t.seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return t;
}

int run_bench(const NamOptions& o) {
    const NamTiming t = time_model(o, 1);
    const double elapsed = t.seconds.front();
    const double audio_seconds = static_cast<double>(t.blocks) * o.block / t.rate;
    const double rtf = audio_seconds / elapsed;
    const double us_per_block = elapsed / static_cast<double>(t.blocks) * 1e6;
    if (o.json) {
        fmt::print("{}\n", nlohmann::json{{"model", t.model}, {"block", o.block}, {"sample_rate", t.rate},
                                          {"audio_seconds", audio_seconds}, {"wall_seconds", elapsed},
                                          {"real_time_factor", rtf}, {"us_per_block", us_per_block}}
                               .dump());
    } else {
        fmt::print("{}: {} blocks of {} at {} Hz: {:.1f}x real time, {:.2f} us per block ({:.2f} us budget)\n",
                   printable(t.model), t.blocks, o.block, t.rate, rtf, us_per_block, o.block / t.rate * 1e6);
    }
    return 0;
}

}  // namespace

std::vector<bench::Row> nam_rows(const BenchPlan& plan, const std::string& model) {
    NamOptions o;
    o.model = model;
    o.seconds = 2.0;
    const NamTiming t = time_model(o, plan.reps);
    const double audio_seconds = static_cast<double>(t.blocks) * o.block / t.rate;
    const std::string name = model == "default" ? "default" : std::filesystem::path(model).stem().string();
    return {rate_row(fmt::format("nam/{} block {}", name, o.block), "x real time", audio_seconds, t.seconds,
                     {{"params", {{"model", t.model}, {"block", o.block}, {"audio_seconds", audio_seconds}}}})};
}

void add_nam_command(CLI::App& forge, CommandTable& commands) {
    auto options = std::make_shared<NamOptions>();
    CLI::App* nam = forge.add_subcommand("nam", "Neural Amp Modeler (.nam) models: render, inspect, benchmark");
    nam->require_subcommand(1);

    CLI::App* run_cmd = nam->add_subcommand("run", "Render an audio file through a .nam model (as Core's render)");
    run_cmd->add_option("model", options->model, "The .nam model, or 'default' (the bundled one; may be left out)")
        ->required();
    run_cmd->add_option("input", options->input, "Input audio (WAV or FLAC)")->required();
    run_cmd->add_option("output", options->output, "Output audio (.wav or .flac)");
    run_cmd->add_option("--input-gain", options->input_gain_db, "Gain applied to the input, in dB")->check(finite_range(-120.0, 120.0))->capture_default_str();
    run_cmd->add_flag("--normalize", options->normalize, "Scale the output to -18 dB loudness (model metadata)");
    run_cmd->add_option("--slim", options->slim, "Slimmable size (default: the full model)")
        ->check(finite_range(0.0, 1.0));
    run_cmd->add_option("--format", options->format, "Output samples: float (WAV default), pcm16, pcm24, pcm32")
        ->check(accepted_by([](const std::string& name) { (void)audio::parse_sample_format(name); }, "float|pcm16|pcm24|pcm32"));
    run_cmd->add_flag("--fast-tanh", options->fast_tanh, "Approximate tanh (Core's fast tanh)");
    run_cmd->callback([options] { check_output_name(options->output.empty() ? options->input : options->output); });
    commands.add(run_cmd, [options] { return run(*options); });

    CLI::App* info_cmd = nam->add_subcommand("info", "Show a .nam model's architecture and metadata");
    info_cmd->add_option("model", options->model, "The .nam model, or 'default' (the bundled one)")->required();
    info_cmd->add_option("--loudness-input", options->loudness_input, "Also measure loudness and gain on this input")
        ->check(input_file());
    commands.add(info_cmd, [options] { return info(*options); });

    CLI::App* bench_cmd = nam->add_subcommand("bench", "Real-time factor of a .nam model on this machine");
    bench_cmd->add_option("model", options->model, "The .nam model, or 'default' (the bundled one)")->required();
    bench_cmd->add_option("--block", options->block, "Frames per block")->check(CLI::Range(1, 1 << 16))->capture_default_str();
    bench_cmd->add_option("--seconds", options->seconds, "Seconds of audio to process")->check(finite_range(0.01, 3600.0))->capture_default_str();
    bench_cmd->add_option("--slim", options->slim, "Slimmable size (default: the full model)")->check(finite_range(0.0, 1.0));
    bench_cmd->add_flag("--fast-tanh", options->fast_tanh, "Approximate tanh (Core's fast tanh)");
    bench_cmd->add_flag("--json", options->json, "One JSON object on stdout");
    commands.add(bench_cmd, [options] { return run_bench(*options); });

    add_nam_train_commands(forge, *nam, commands);
    add_nam_devices_command(*nam, commands);
    add_nam_live_command(*nam, commands);
}

}  // namespace forge::app
