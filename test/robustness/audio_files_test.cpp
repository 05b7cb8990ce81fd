// Hostile audio files: a header that claims more than the file holds must not make forge
// allocate what it claims.
#include "core/audio/audio_file.h"
#include "core/error.h"
#include "test/robustness/hostile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace forge::test
