// Sample-rate conversion of a mono signal through libsamplerate (SRC_SINC_BEST_QUALITY).
#pragma once

#include <span>
#include <vector>

namespace forge::audio {

std::vector<float> resample(std::span<const float> input, double from_rate, double to_rate);

}  // namespace forge::audio
