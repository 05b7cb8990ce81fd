#include "core/audio/resample.h"

#include "core/error.h"

#include <samplerate.h>

#include <cmath>

namespace forge::audio {

std::vector<float> resample(std::span<const float> input, double from_rate, double to_rate) {
    check(from_rate > 0 && to_rate > 0, "resample: rates must be positive ({} -> {})", from_rate, to_rate);
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
    check(error == 0, "resample {} -> {} Hz: {}", from_rate, to_rate, src_strerror(error));
    output.resize(static_cast<std::size_t>(data.output_frames_gen));
    return output;
}

}  // namespace forge::audio
