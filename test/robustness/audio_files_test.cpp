// Hostile audio files: a header that claims more than the file holds, or a sample rate no
// recording has, must not make forge allocate what it claims.
#include "core/audio/audio_file.h"
#include "core/audio/resample.h"
#include "core/error.h"
#include "test/robustness/hostile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace forge::test {
namespace {

using ::testing::HasSubstr;

// A FLAC stream with a STREAMINFO block that claims `frames` frames of 16-bit mono at
// 48 kHz, and no audio frames after it.
std::string flac_claiming(std::uint64_t frames) {
    std::string out = "fLaC";
    out += '\x80';                 // last metadata block, type 0 (STREAMINFO)
    out += std::string("\0\0\x22", 3);  // length 34
    out += std::string("\x10\x00\x10\x00", 4);  // min and max block size 4096
    out += std::string(6, '\0');   // min and max frame size unknown
    // 20 bits rate | 3 bits channels-1 | 5 bits bits-1 | 36 bits total samples
    const std::uint64_t packed = (std::uint64_t{48000} << 44) | (std::uint64_t{0} << 41) | (std::uint64_t{15} << 36) | frames;
    for (int shift = 56; shift >= 0; shift -= 8) out += static_cast<char>((packed >> shift) & 0xFF);
    out += std::string(16, '\0');  // MD5 unknown
    return out;
}

TEST(AudioHostile, FlacHeaderClaimingHalfABillionFramesIsNotAllocated) {
    const fs::path path = write_file("claims.flac", flac_claiming(500'000'000));
    // In this process: read_audio must fail without allocating 2 GB. Measured: the peak grows
    // by 0.85 MiB (simd build) and 0.52 MiB (scalar, ASan + UBSan); the bug zeroed 2 GB first.
    const double growth = peak_rss_growth_mib([&] {
        try {
            audio::read_audio(path);
            ADD_FAILURE() << "a FLAC file without frames was read";
        } catch (const FormatError& e) {
            EXPECT_THAT(e.what(), HasSubstr("claims.flac"));
            EXPECT_THAT(e.what(), HasSubstr("truncated audio"));
        }
    });
    EXPECT_LT(growth, 512) << "MiB of peak growth";
    // Through the CLI as well.
    expect_error(run_bounded("nam run default " + quoted(path) + " " + quoted((scratch_dir() / "o.wav").string())),
                 "claims.flac");
}

TEST(AudioHostile, HeaderBeyondTheSampleBoundIsRefusedUpFront) {
    const fs::path path = write_file("huge.flac", flac_claiming((std::uint64_t{1} << 36) - 1));
    try {
        audio::read_audio(path);
        ADD_FAILURE() << "read";
    } catch (const FormatError& e) {
        EXPECT_THAT(e.what(), HasSubstr("huge.flac: the header claims"));
    }
}

// A 16-bit mono WAV of `samples` samples of silence whose header claims `rate` Hz.
std::string wav_claiming(std::uint32_t rate, std::uint32_t samples) {
    std::string out;
    const auto put = [&](std::uint32_t value, int bytes) {
        for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xFF);
    };
    out += "RIFF";
    put(36 + 2 * samples, 4);
    out += "WAVEfmt ";
    put(16, 4);
    put(1, 2);  // PCM
    put(1, 2);  // mono
    put(rate, 4);
    put(2 * rate, 4);  // bytes per second
    put(2, 2);         // bytes per frame
    put(16, 2);        // bits per sample
    out += "data";
    put(2 * samples, 4);
    out.append(2 * static_cast<std::size_t>(samples), '\0');
    return out;
}

// A header's 1 Hz made 32 KB of file 1 GB of resampler output (16 000 samples out per sample
// in) before libsamplerate refused the ratio in an error naming no file; 63 Hz on 2 MB took
// 1-3 GB and over a minute. Rates below 1 kHz are refused before anything is allocated.
TEST(AudioHostile, ASampleRateNoRecordingHasIsRefusedBeforeResampling) {
    const fs::path one_hertz = write_file("one_hertz.wav", wav_claiming(1, 16'000));
    const fs::path low = write_file("sixty_three_hertz.wav", wav_claiming(63, 1'000'000));
    // In this process: refused with the source named, and no allocation.
    const std::vector<float> signal(16'000);
    const double growth = peak_rss_growth_mib([&] {
        try {
            audio::resample(signal, 1, 16'000, one_hertz.string());
            ADD_FAILURE() << "1 Hz was resampled";
        } catch (const Error& e) {
            EXPECT_THAT(e.what(), HasSubstr("one_hertz.wav: cannot resample 1 Hz to 16000 Hz"));
        }
    });
    EXPECT_LT(growth, 16) << "MiB of peak growth";
    // A ratio past libsamplerate's, and an output past the samples forge holds.
    EXPECT_THROW(audio::resample(signal, 1'000, 768'000, "ratio"), Error);
    const std::vector<float> long_signal(std::size_t{1} << 23);
    try {
        audio::resample(long_signal, 1'000, 250'000, "long.wav");
        ADD_FAILURE() << "2^31 samples of output were allocated";
    } catch (const Error& e) {
        EXPECT_THAT(e.what(), HasSubstr("long.wav: 8388608 samples at 1000 Hz would be"));
    }
    // A sane rate still converts.
    EXPECT_NEAR(static_cast<double>(audio::resample(signal, 8'000, 16'000, "ok").size()), 32'000, 16);
    // Through the CLI: the transcriber's 16 kHz and the NAM model's 48 kHz.
    for (const fs::path& path : {one_hertz, low}) {
        expect_error(run_bounded("transcribe " + quoted(path)), path.filename().string());
        expect_error(run_bounded("nam run default " + quoted(path) + " " + quoted((scratch_dir() / "o.wav").string())),
                     path.filename().string());
    }
}

// Raw samples without a header (or any file that is not audio) are said to be that, naming the
// file, instead of libsndfile's "Format not recognised".
TEST(AudioHostile, HeaderlessAudioSaysSo) {
    const std::string samples(4096, '\x11');
    const fs::path raw = write_file("samples.raw", samples);
    const std::string said = "not an audio file forge can read: no WAV, FLAC, Ogg, AIFF or other known header "
                             "(headerless raw samples cannot be read)";
    try {
        audio::read_audio(raw);
        ADD_FAILURE() << "headerless samples were read";
    } catch (const FormatError& e) {
        EXPECT_THAT(e.what(), HasSubstr("samples.raw: " + said));
    }
    try {
        audio::read_audio(std::as_bytes(std::span(samples)), "upload.raw");
        ADD_FAILURE() << "headerless samples were read";
    } catch (const FormatError& e) {
        EXPECT_THAT(e.what(), HasSubstr("upload.raw: " + said));
    }
    // Other failures keep libsndfile's reason.
    EXPECT_THROW(
        {
            try {
                audio::read_audio(scratch_dir() / "no_such.wav");
            } catch (const FormatError& e) {
                EXPECT_THAT(e.what(), HasSubstr("no_such.wav: cannot read audio"));
                throw;
            }
        },
        FormatError);
    expect_error(run_bounded("transcribe " + quoted(raw)), "samples.raw: not an audio file forge can read");
}

}  // namespace
}  // namespace forge::test
