#include "app/speech_input.h"

#include "app/bundled_models.h"

#include "core/audio/audio_file.h"
#include "core/audio/resample.h"
#include "core/error.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <unistd.h>

namespace forge::app {
namespace {

// The bundled model's file name (models/asr/bundled/, made by tools/train_default_asr.sh).
constexpr std::string_view kBundledAsrModel = "forge-asr.gguf";

// stdin copied to a temporary file (libsndfile reads a file), removed when this goes.
class StdinFile {
public:
    StdinFile()
        : path_(std::filesystem::temp_directory_path() / ("forge-transcribe-" + std::to_string(::getpid()) + ".wav")) {
        std::ofstream out(path_, std::ios::binary);
        out << std::cin.rdbuf();
        check(out.good() || std::cin.eof(), "could not copy stdin to {}", path_.string());
    }
    ~StdinFile() {
        std::error_code ignored;
        std::filesystem::remove(path_, ignored);
    }
    StdinFile(const StdinFile&) = delete;
    StdinFile& operator=(const StdinFile&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

audio::Audio read_source(const std::string& source) {
    if (source != "-") {
        check(std::filesystem::exists(source), "{}: no such audio file", source);
        return audio::read_audio(source);
    }
    const StdinFile input;
    check(std::filesystem::file_size(input.path()) > 0, "stdin: no audio (pipe a WAV file into 'forge transcribe -')");
    try {
        return audio::read_audio(input.path());
    } catch (const Error& e) {
        throw Error(fmt::format("stdin: not a readable audio stream ({})", e.what()));
    }
}

}  // namespace

std::string asr_model_path(const std::string& model) {
    if (!model.empty() && model != "default") {
        check(std::filesystem::exists(model), "{}: no such model file", model);
        return model;
    }
    const std::string path = bundled_model_path("asr", kBundledAsrModel);
    spdlog::info("model: {} (the bundled default)", path);
    return path;
}

std::vector<float> read_speech(const std::string& source, int sample_rate) {
    const audio::Audio a = read_source(source);
    check(a.frames() > 0, "{}: the audio is empty", source);
    std::vector<float> mono = audio::channel_of(a, -1);
    if (a.sample_rate != sample_rate) mono = audio::resample(mono, a.sample_rate, sample_rate, source);
    return mono;
}

asr::DecoderChoice parse_decoder(const std::string& name) {
    if (name == "auto") return asr::DecoderChoice::Auto;
    if (name == "ctc") return asr::DecoderChoice::Ctc;
    if (name == "transducer") return asr::DecoderChoice::Transducer;
    fail("--decoder: '{}' is not one of auto, ctc, transducer", name);
}

}  // namespace forge::app
