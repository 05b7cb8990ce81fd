// Audio files in and out through libsndfile: WAV (16/24/32-bit PCM, 32-bit float) and FLAC.
// Samples are float, interleaved when there are several channels; integer PCM decodes as
// int / 2^(bits-1), so a 24-bit file reads exactly as int24 / 2^23.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace forge::audio {

enum class SampleFormat { Pcm16, Pcm24, Pcm32, Float32 };
enum class Container { Wav, Flac };

struct Audio {
    std::vector<float> samples;  // frames × channels, interleaved
    int channels = 1;
    int sample_rate = 0;
    std::size_t frames() const { return channels > 0 ? samples.size() / static_cast<std::size_t>(channels) : 0; }
};

struct WriteFormat {
    Container container = Container::Wav;
    SampleFormat sample = SampleFormat::Float32;  // FLAC: 16 or 24-bit only
};

// What read_audio accepts: up to 1024 channels and 2^30 samples in all (4 GiB of floats:
// six hours of mono at 48 kHz). The header's frame count is checked against this before
// anything is allocated, and memory then grows with the samples actually decoded.
inline constexpr int kMaxChannels = 1024;
inline constexpr long long kMaxSamples = 1LL << 30;

Audio read_audio(const std::filesystem::path& path);
// The same from bytes in memory (stdin, read whole), `name` naming them in errors.
Audio read_audio(std::span<const std::byte> bytes, const std::string& name);

// Written to a temporary file in the same folder, then renamed over `path`.
void write_audio(const std::filesystem::path& path, const Audio& audio, const WriteFormat& format = {});

// One channel of an interleaved signal; the mean of all channels for channel = -1.
std::vector<float> channel_of(const Audio& audio, int channel);

// "wav" / "flac" from the file name (default wav), and a sample format from a name:
// "pcm16", "pcm24", "pcm32", "float".
Container container_for(const std::filesystem::path& path);
SampleFormat parse_sample_format(const std::string& name);

}  // namespace forge::audio
