// libFuzzer target for audio files through forge's reader (libsndfile underneath): WAV,
// FLAC and whatever else libsndfile recognizes. Any byte string must either decode or throw
// forge::FormatError, and memory must follow the samples really there, not the header.
#include "core/audio/audio_file.h"
#include "core/error.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

// The input as a file without touching the disk: a memfd, opened by its /proc path.
class MemoryFile {
public:
    MemoryFile() : fd_(memfd_create("audio_fuzz", 0)) {
        if (fd_ < 0) std::abort();
    }
    ~MemoryFile() { close(fd_); }
    std::string hold(const std::uint8_t* data, std::size_t size) {
        if (ftruncate(fd_, 0) != 0 || pwrite(fd_, data, size, 0) != static_cast<ssize_t>(size)) std::abort();
        return "/proc/self/fd/" + std::to_string(fd_);
    }

private:
    int fd_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static MemoryFile file;
    try {
        const forge::audio::Audio audio = forge::audio::read_audio(file.hold(data, size));
        if (audio.channels < 1 || audio.samples.size() % static_cast<std::size_t>(audio.channels) != 0) std::abort();
        (void)forge::audio::channel_of(audio, -1);
    } catch (const forge::FormatError&) {
        // The expected outcome for a malformed file.
    }
    return 0;
}
