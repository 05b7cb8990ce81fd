#include "core/audio/audio_file.h"

#include "core/checkpoint/atomic_file.h"
#include "core/error.h"

#include <fmt/format.h>
#include <sndfile.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

namespace forge::audio {
namespace {

struct SndfileCloser {
    void operator()(SNDFILE* file) const { sf_close(file); }
};
using SndfileHandle = std::unique_ptr<SNDFILE, SndfileCloser>;

int sndfile_format(const WriteFormat& f, const std::filesystem::path& path) {
    if (f.container == Container::Flac) {
        if (f.sample == SampleFormat::Pcm16) return SF_FORMAT_FLAC | SF_FORMAT_PCM_16;
        if (f.sample == SampleFormat::Pcm24) return SF_FORMAT_FLAC | SF_FORMAT_PCM_24;
        fail("{}: FLAC holds 16 or 24-bit samples only", path.string());
    }
    switch (f.sample) {
        case SampleFormat::Pcm16: return SF_FORMAT_WAV | SF_FORMAT_PCM_16;
        case SampleFormat::Pcm24: return SF_FORMAT_WAV | SF_FORMAT_PCM_24;
        case SampleFormat::Pcm32: return SF_FORMAT_WAV | SF_FORMAT_PCM_32;
        case SampleFormat::Float32: return SF_FORMAT_WAV | SF_FORMAT_FLOAT;
    }
    return 0;
}

// Bytes in memory as a file libsndfile reads (its virtual I/O): read-only, seekable.
struct MemoryFile {
    std::span<const std::byte> bytes;
    sf_count_t position = 0;
};

SF_VIRTUAL_IO memory_io() {
    SF_VIRTUAL_IO io{};
    io.get_filelen = [](void* m) { return static_cast<sf_count_t>(static_cast<MemoryFile*>(m)->bytes.size()); };
    io.tell = [](void* m) { return static_cast<MemoryFile*>(m)->position; };
    io.seek = [](sf_count_t offset, int whence, void* m) {
        auto& f = *static_cast<MemoryFile*>(m);
        const auto size = static_cast<sf_count_t>(f.bytes.size());
        const sf_count_t from = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? f.position : size;
        f.position = std::clamp<sf_count_t>(from + offset, 0, size);
        return f.position;
    };
    io.read = [](void* out, sf_count_t count, void* m) {
        auto& f = *static_cast<MemoryFile*>(m);
        const sf_count_t n = std::clamp<sf_count_t>(count, 0, static_cast<sf_count_t>(f.bytes.size()) - f.position);
        std::memcpy(out, f.bytes.data() + f.position, static_cast<std::size_t>(n));
        f.position += n;
        return n;
    };
    return io;  // no write: libsndfile opens it for reading only
}

// The samples of an open file, `name` naming it in errors.
Audio decode(SNDFILE* file, const SF_INFO& info, const std::string& name) {
    if (info.channels < 1 || info.channels > kMaxChannels || info.samplerate < 1)
        fail_format("{}: {} channels at {} Hz is not audio forge can read (1 to {} channels)",
                    name, info.channels, info.samplerate, kMaxChannels);
    if (info.frames < 0 || info.frames > kMaxSamples / info.channels)
        fail_format("{}: the header claims {} frames of {} channels, more than the {} samples forge "
                    "reads", name, info.frames, info.channels, kMaxSamples);
    Audio audio;
    audio.channels = info.channels;
    audio.sample_rate = info.samplerate;
    // Integer PCM scales by a power of two here, so the decode is exact (int / 2^(bits-1)).
    sf_command(file, SFC_SET_NORM_FLOAT, nullptr, SF_TRUE);
    // Read in chunks rather than allocating what the header claims: a 1 KB FLAC file may
    // claim 5e8 frames, and the memory should follow the samples that are really there.
    // Chunks count samples (channels do not multiply them) and start small: 4096 samples,
    // doubling with what was read up to 2^16, so a short or lying file costs 16 KiB, not the
    // 256 KiB or more of a fixed chunk, and a long one still takes few reads.
    const auto channels = static_cast<std::size_t>(info.channels);
    constexpr sf_count_t kFirstChunkSamples = 1 << 12, kMaxChunkSamples = 1 << 16;
    sf_count_t got = 0;
    while (got < info.frames) {
        const sf_count_t chunk = std::clamp<sf_count_t>(got * info.channels, kFirstChunkSamples, kMaxChunkSamples);
        const sf_count_t want = std::min(std::max<sf_count_t>(chunk / info.channels, 1), info.frames - got);
        audio.samples.resize(static_cast<std::size_t>(got + want) * channels);
        const sf_count_t read = sf_readf_float(file, audio.samples.data() + static_cast<std::size_t>(got) * channels, want);
        got += std::max<sf_count_t>(read, 0);
        if (read < want) break;
    }
    audio.samples.resize(static_cast<std::size_t>(got) * channels);
    if (got != info.frames)
        fail_format("{}: truncated audio: {} of {} frames", name, got, info.frames);
    return audio;
}

// Why libsndfile could not open `name`. A file without a header it knows (raw samples, a
// text file, a model) is said to be that, in words, rather than as libsndfile's "Format not
// recognised".
[[noreturn]] void fail_to_open(const std::string& name) {
    check_format(sf_error(nullptr) != SF_ERR_UNRECOGNISED_FORMAT,
                 "{}: not an audio file forge can read: no WAV, FLAC, Ogg, AIFF or other known header "
                 "(headerless raw samples cannot be read)", name);
    fail_format("{}: cannot read audio: {}", name, sf_strerror(nullptr));
}

}  // namespace

Audio read_audio(const std::filesystem::path& path) {
    SF_INFO info{};
    SndfileHandle file(sf_open(path.c_str(), SFM_READ, &info));
    if (!file) fail_to_open(path.string());
    return decode(file.get(), info, path.string());
}

Audio read_audio(std::span<const std::byte> bytes, const std::string& name) {
    MemoryFile memory{bytes};
    SF_VIRTUAL_IO io = memory_io();
    SF_INFO info{};
    SndfileHandle file(sf_open_virtual(&io, SFM_READ, &info, &memory));
    if (!file) fail_to_open(name);
    return decode(file.get(), info, name);
}

void write_audio(const std::filesystem::path& path, const Audio& audio, const WriteFormat& format) {
    SF_INFO info{};
    info.channels = audio.channels;
    info.samplerate = audio.sample_rate;
    info.format = sndfile_format(format, path);
    check(sf_format_check(&info) != 0, "{}: libsndfile cannot write this format", path.string());
    checkpoint::TemporaryFile temporary(path);
    {
        // Through the descriptor of the file created for it, not its name again; forge closes it.
        SndfileHandle file(sf_open_fd(temporary.fd(), SFM_WRITE, &info, SF_FALSE));
        if (!file) fail("{}: cannot write audio: {}", temporary.path().string(), sf_strerror(nullptr));
        // Float data clipped to [-1, 1] when the file holds integers (no wrap-around).
        sf_command(file.get(), SFC_SET_CLIPPING, nullptr, SF_TRUE);
        const auto frames = static_cast<sf_count_t>(audio.frames());
        if (sf_writef_float(file.get(), audio.samples.data(), frames) != frames)
            fail("{}: short write: {}", temporary.path().string(), sf_strerror(file.get()));
    }  // closed (and its header finished) before the rename
    temporary.commit();
}

std::vector<float> channel_of(const Audio& audio, int channel) {
    const std::size_t frames = audio.frames();
    const auto c = static_cast<std::size_t>(audio.channels);
    std::vector<float> out(frames);
    for (std::size_t t = 0; t < frames; ++t) {
        if (channel >= 0) {
            out[t] = audio.samples[t * c + static_cast<std::size_t>(channel)];
        } else {
            float sum = 0.0f;
            for (std::size_t k = 0; k < c; ++k) sum += audio.samples[t * c + k];
            out[t] = sum / static_cast<float>(c);
        }
    }
    return out;
}

Container container_for(const std::filesystem::path& path) {
    auto ext = path.extension().string();
    for (auto& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return ext == ".flac" ? Container::Flac : Container::Wav;
}

SampleFormat parse_sample_format(const std::string& name) {
    if (name == "pcm16") return SampleFormat::Pcm16;
    if (name == "pcm24") return SampleFormat::Pcm24;
    if (name == "pcm32") return SampleFormat::Pcm32;
    if (name == "float") return SampleFormat::Float32;
    fail("unknown sample format \"{}\" (pcm16, pcm24, pcm32, float)", name);
}

}  // namespace forge::audio
