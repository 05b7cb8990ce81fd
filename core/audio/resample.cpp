#include "core/audio/resample.h"

#include "core/audio/audio_file.h"
#include "core/error.h"

#include <samplerate.h>

#include <cmath>

namespace forge::audio {
namespace {

bool sane_rate(double rate) { return rate >= kMinSampleRate && rate <= kMaxSampleRate; }

// Everything resample() refuses, checked before the output is allocated.
void check_conversion(std::size_t input_samples, double from_rate, double to_rate, std::string_view source) {
    check(sane_rate(from_rate) && sane_rate(to_rate), "{}: cannot resample {} Hz to {} Hz: forge resamples rates of {} to {} Hz",
          source, from_rate, to_rate, kMinSampleRate, kMaxSampleRate);
    const double ratio = to_rate / from_rate;
    check(ratio <= kMaxResampleRatio && ratio >= 1 / kMaxResampleRatio,
          "{}: cannot resample {} Hz to {} Hz: a ratio past libsamplerate's {}", source, from_rate, to_rate,
          kMaxResampleRatio);
    const double output_samples = std::ceil(static_cast<double>(input_samples) * ratio);
    check(output_samples <= static_cast<double>(kMaxSamples),
          "{}: {} samples at {} Hz would be {} samples at {} Hz, more than the {} forge holds", source, input_samples,
          from_rate, output_samples, to_rate, kMaxSamples);
}

}  // namespace

std::vector<float> resample(std::span<const float> input, double from_rate, double to_rate, std::string_view source) {
    check_conversion(input.size(), from_rate, to_rate, source);
    const double ratio = to_rate / from_rate;
    std::vector<float> output(static_cast<std::size_t>(std::ceil(static_cast<double>(input.size()) * ratio)) + 16);
    SRC_DATA data{};
    data.data_in = input.data();
    data.input_frames = static_cast<long>(input.size());
    data.data_out = output.data();
    data.output_frames = static_cast<long>(output.size());
    data.src_ratio = ratio;
    data.end_of_input = 1;
    const int error = src_simple(&data, SRC_SINC_BEST_QUALITY, 1);
    check(error == 0, "{}: resample {} -> {} Hz: {}", source, from_rate, to_rate, src_strerror(error));
    output.resize(static_cast<std::size_t>(data.output_frames_gen));
    return output;
}

}  // namespace forge::audio
