#include "app/speech_input.h"

#include "core/audio/audio_file.h"
#include "core/audio/resample.h"
#include "core/error.h"


#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace forge::app {
namespace {

// What `-` reads at most: 1 GiB is nine hours of 16-bit mono at 16 kHz. Larger audio is
// read from its file (the samples' own bound, kMaxSamples, still applies), which forge
// reads in chunks rather than whole.
constexpr std::size_t kMaxStdinBytes = std::size_t{1} << 30;

// All of stdin, in memory: libsndfile decodes it from there (no temporary file, so nothing
// to plant a link at, to leave behind on an interrupt, or to fill /tmp with).
std::vector<std::byte> read_stdin() {
    std::vector<std::byte> bytes;
    std::size_t size = 0;
    for (std::size_t chunk = std::size_t{1} << 16;; chunk = std::min(chunk * 2, std::size_t{1} << 24)) {
        bytes.resize(size + chunk);
        const ssize_t got = ::read(STDIN_FILENO, bytes.data() + size, chunk);
        if (got < 0 && errno == EINTR) continue;
        check(got >= 0, "stdin: {}", std::strerror(errno));
        if (got == 0) break;
        size += static_cast<std::size_t>(got);
        check(size <= kMaxStdinBytes, "stdin: more than {} MiB of audio; give the file's path instead",
              kMaxStdinBytes >> 20);
    }
    bytes.resize(size);
    return bytes;
}

audio::Audio read_source(const std::string& source) {
    if (source != "-") {
        check(std::filesystem::exists(source), "{}: no such audio file", source);
        return audio::read_audio(source);
    }
    const std::vector<std::byte> input = read_stdin();
    check(!input.empty(), "stdin: no audio (pipe a WAV file into 'forge transcribe -')");
    return audio::read_audio(input, "stdin");
}

}  // namespace

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
