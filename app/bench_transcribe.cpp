// `forge bench transcribe [MODEL]`: the real-time factor of speech recognition (seconds of
// processing per second of audio, lower is better) from audio in to transcript out: log-mel,
// encoder, greedy decoding. MODEL is a Parakeet GGUF or "default" (the bundled model); the
// audio is --audio, or a synthetic clip of --seconds (chirps and noise: the encoder's cost does
// not depend on the words; a transducer's decoding does, so give real speech to measure it).
#include "app/bench.h"
#include "app/cli_checks.h"
#include "app/bench_stats.h"
#include "app/bundled_models.h"
#include "app/speech_input.h"
#include "app/timing.h"
#include "core/thread_pool.h"
#include "models/asr/transcriber.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <memory>
#include <numbers>
#include <random>

namespace forge::app {
namespace {

struct BenchTranscribeOptions {
    std::string model = "default";
    std::string audio;
    double seconds = 10.0;
    std::string decoder = "auto";
    int reps = 3;
    int threads = 0;
    bool json = false;
};

std::vector<float> synthetic_clip(double seconds, std::int64_t rate) {
    std::mt19937 rng(5);
    std::normal_distribution<float> noise(0.0f, 0.05f);
    std::vector<float> x(static_cast<std::size_t>(seconds * static_cast<double>(rate)));
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double t = static_cast<double>(i) / static_cast<double>(rate);
        x[i] = static_cast<float>(0.3 * std::sin(2.0 * std::numbers::pi * (200.0 * t + 90.0 * t * t))) + noise(rng);
    }
    return x;
}

int run(const BenchTranscribeOptions& o) {
    if (o.threads > 0) ThreadPool::set_global_threads(o.threads);
    const std::string path = resolve_model(o.model, kBundledSpeechModel);
    const asr::ParakeetModel model = asr::ParakeetModel::load(path);
    const auto rate = model.config.preprocessor.sample_rate;
    const std::vector<float> samples =
        o.audio.empty() ? synthetic_clip(o.seconds, rate) : read_speech(o.audio, static_cast<int>(rate));
    const double duration = static_cast<double>(samples.size()) / static_cast<double>(rate);
    const asr::Transcriber transcriber(model);
    asr::TranscribeOptions run;
    run.decoder = parse_decoder(o.decoder);
    std::size_t tokens = 0;
    const std::vector<double> times = time_reps([&] { tokens = transcriber(samples, run).tokens.size(); }, o.reps);
    const double median = bench::summarize(times).median;
    const double rtf = median / duration;
    if (o.json) {
        const nlohmann::ordered_json j = {{"model", path},
                                          {"arch", asr::arch_name(model.config.arch)},
                                          {"audio_seconds", duration},
                                          {"decoder", o.decoder},
                                          {"tokens", tokens},
                                          {"threads", ThreadPool::global().size()},
                                          {"seconds", times},
                                          {"real_time_factor", rtf}};
        fmt::print("{}\n", j.dump());
    } else {
        fmt::print("model {} ({}, decoder {}), {:.1f} s of audio, {} tokens, {} threads, {} reps\n", path,
                   asr::arch_name(model.config.arch), o.decoder, duration, tokens, ThreadPool::global().size(), o.reps);
        fmt::print("median {:.3f} s: real-time factor {:.4f} ({:.1f}x faster than real time)\n", median, rtf,
                   1.0 / rtf);
    }
    return 0;
}

}  // namespace

void add_bench_transcribe_command(CLI::App& bench, CommandTable& commands) {
    auto o = std::make_shared<BenchTranscribeOptions>();
    CLI::App* cmd = bench.add_subcommand("transcribe", "Real-time factor of forge transcribe on a Parakeet model");
    cmd->add_option("model", o->model, "A Parakeet GGUF file, or 'default' (the bundled model)");
    cmd->add_option("--audio", o->audio, "Speech to transcribe (default: a synthetic clip)");
    cmd->add_option("--seconds", o->seconds, "Length of the synthetic clip")->check(finite_range(0.1, 3600.0))->capture_default_str();
    cmd->add_option("--decoder", o->decoder, "auto (the transducer when there is one), ctc, transducer")
        ->check(CLI::IsMember({"auto", "ctc", "transducer"}))->capture_default_str();
    cmd->add_option("--reps", o->reps, "Measured repetitions after one warm-up")->check(CLI::Range(1, 1000))->capture_default_str();
    cmd->add_option("--threads", o->threads, "Worker threads (default: FORGE_THREADS, else all cores)")->check(CLI::Range(1, ThreadPool::kMaxThreads));
    cmd->add_flag("--json", o->json, "One JSON object on stdout");
    commands.add(cmd, [o] { return run(*o); });
}

}  // namespace forge::app
