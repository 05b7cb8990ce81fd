#include "models/nam/train/capture_layout.h"

#include "models/nam/train/capture_signal.h"

#include <algorithm>
#include <cmath>

namespace forge::nam::train {
namespace {

// A PCM16 file of the signal differs by at most half a step, 1.5e-5.
constexpr float kSameSampleTolerance = 1e-4f;

bool matches(std::span<const float> input, const std::vector<float>& reference) {
    if (input.size() != reference.size()) return false;
    for (std::size_t i = 0; i < input.size(); ++i)
        if (std::abs(input[i] - reference[i]) > kSameSampleTolerance) return false;
    return true;
}

// The reference trainer's v3 layout (_V3_DATA_INFO) for a file of n samples.
CaptureLayout nam_v3_layout(long n) {
    CaptureLayout l;
    l.name = "nam-v3";
    l.length = n;
    l.validation_length = 432'000;
    l.blips_start = 480'000;
    l.blips_length = 96'000;
    l.blips = {504'000, 552'000};
    l.noise_begin = 492'000;
    l.noise_end = 498'000;
    l.train_begin = 480'000;
    l.train_end = n - 432'000;
    l.validation_begin = n - 432'000;
    return l;
}

bool looks_like_nam_v3(std::span<const float> x, int rate) {
    const long n = static_cast<long>(x.size());
    if (rate != 48000 || n < 2 * 480'000) return false;
    for (long i = 0; i < 432'000; ++i)
        if (std::abs(x[static_cast<std::size_t>(i)] - x[static_cast<std::size_t>(n - 432'000 + i)]) > kSameSampleTolerance)
            return false;
    return std::all_of(x.begin() + 432'000, x.begin() + 480'000, [](float v) { return std::abs(v) < kSameSampleTolerance; });
}

}  // namespace

CaptureLayout recognize_capture(std::span<const float> input, int rate) {
    for (CaptureSize size : {CaptureSize::Full, CaptureSize::Short}) {
        const CaptureLayout layout = capture_layout(size);
        if (rate == layout.rate && static_cast<long>(input.size()) == layout.length && matches(input, capture_signal(size)))
            return layout;
    }
    if (looks_like_nam_v3(input, rate)) return nam_v3_layout(static_cast<long>(input.size()));
    return {};
}

}  // namespace forge::nam::train
