// forge transcribe: speech to text with a Parakeet model (docs/ASR.md).
//
//   forge transcribe clip.wav                          (the bundled model)
//   forge transcribe a.wav b.flac --model parakeet-tdt_ctc-110m.gguf --format json
//   forge transcribe - --model M.gguf < clip.wav       (WAV on stdin)
//   forge transcribe talk.wav --model M.gguf --format srt > talk.srt
#include "app/bundled_models.h"
#include "app/cli_checks.h"
#include "app/commands.h"
#include "app/speech_input.h"
#include "app/transcript_format.h"
#include "core/error.h"
#include "core/thread_pool.h"
#include "models/asr/transcriber.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

namespace forge::app {
namespace {

struct TranscribeCliOptions {
    std::vector<std::string> inputs;
    std::string model = "default";
    std::string format = "text";
    std::string decoder = "auto";
    int threads = 0;
    asr::TranscribeOptions run;
};

int transcribe(TranscribeCliOptions o) {
    TranscriptWriter writer(parse_transcript_format(o.format));
    check(std::count(o.inputs.begin(), o.inputs.end(), "-") <= 1, "'-' (stdin) can be given once: stdin is read whole");
    o.run.decoder = parse_decoder(o.decoder);
    if (o.threads > 0) ThreadPool::set_global_threads(o.threads);
    const asr::ParakeetModel model = asr::ParakeetModel::load(resolve_model(o.model, kBundledSpeechModel));
    spdlog::debug("model: {} encoder, {} layers, d_model {}", asr::arch_name(model.config.arch),
                  model.config.encoder.n_layers, model.config.encoder.d_model);
    const asr::Transcriber transcriber(model);
    // The model's vocabulary is text from a file: on a terminal its pieces could send escape
    // sequences, so they are escaped there (as a chat answer is); a pipe gets the text exactly.
    const bool stdout_is_a_terminal = isatty(STDOUT_FILENO) != 0;
    for (const std::string& input : o.inputs) {
        const std::vector<float> samples =
            read_speech(input, static_cast<int>(model.config.preprocessor.sample_rate));
        const auto start = std::chrono::steady_clock::now();
        const asr::Transcript t = transcriber(samples, o.run);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double rtf = t.duration > 0.0 ? seconds / t.duration : 0.0;
        const std::string text = writer.next(t, input, rtf);
        std::fputs((stdout_is_a_terminal ? printable(text) : text).c_str(), stdout);
        std::fflush(stdout);
        spdlog::debug("{}: {:.2f} s of audio in {:.2f} s (real-time factor {:.3f})", input, t.duration, seconds, rtf);
    }
    return 0;
}

}  // namespace

void add_transcribe_command(CLI::App& forge, CommandTable& commands) {
    auto o = std::make_shared<TranscribeCliOptions>();
    CLI::App* cmd = forge.add_subcommand("transcribe", "Speech to text with a Parakeet (FastConformer) model");
    cmd->add_option("audio", o->inputs, "Audio files (WAV, FLAC; any rate and channels), or - for WAV on stdin")
        ->required();
    cmd->add_option("-m,--model", o->model, "A Parakeet GGUF file, or 'default' (the bundled model)")->capture_default_str();
    cmd->add_option("--format", o->format, "Output: text (one line per input), json, srt, vtt")
        ->check(CLI::IsMember({"text", "json", "srt", "vtt"}))->capture_default_str();
    cmd->add_option("--decoder", o->decoder, "auto (the transducer when there is one), ctc, transducer")
        ->check(CLI::IsMember({"auto", "ctc", "transducer"}))->capture_default_str();
    cmd->add_option("--max-symbols", o->run.max_symbols, "Transducer tokens per encoder frame at most")
        ->check(CLI::Range(1, 1000))->capture_default_str();
    cmd->add_option("--window", o->run.window_seconds, "Long audio: seconds per window")->check(finite_range(1.0, 3600.0))->capture_default_str();
    cmd->add_option("--overlap", o->run.overlap_seconds, "Long audio: seconds two windows share")
        ->check(finite_range(0.0, 600.0))->capture_default_str();
    cmd->add_option("--threads", o->threads, "Worker threads (default: FORGE_THREADS, else all cores)")
        ->check(CLI::Range(1, ThreadPool::kMaxThreads));
    commands.add(cmd, [o] { return transcribe(*o); });
}

}  // namespace forge::app
