#include "models/nam/train/latency.h"

#include <algorithm>
#include <cmath>

namespace forge::nam::train {
namespace {

// The reference trainer's constants (_DELAY_CALIBRATION_*): the trigger sits this far above
// the background, absolutely and relatively, whichever is higher.
constexpr double kAbsThreshold = 0.0003;
constexpr double kRelThreshold = 0.001;
constexpr int kSafetyFactor = 1;
constexpr long kLookahead = 1000;
constexpr long kLookback = 10000;

}  // namespace

LatencyCalibration calibrate_latency(std::span<const float> y, const CaptureLayout& layout) {
    LatencyCalibration result;
    if (static_cast<long>(y.size()) < layout.blips.back() + kLookback) {
        result.warning = "the output ends before the blips' responses";
        return result;
    }
    double background = 0.0;
    for (long i = layout.noise_begin; i < layout.noise_end; ++i) background = std::max(background, std::abs(static_cast<double>(y[static_cast<std::size_t>(i)])));
    const double trigger = std::max(background + kAbsThreshold, (1.0 + kRelThreshold) * background);

    std::vector<double> average(static_cast<std::size_t>(kLookahead + kLookback), 0.0);
    for (long blip : layout.blips)
        for (long i = 0; i < kLookahead + kLookback; ++i)
            average[static_cast<std::size_t>(i)] += y[static_cast<std::size_t>(blip - kLookahead + i)] / static_cast<double>(layout.blips.size());
    const auto hit = std::find_if(average.begin(), average.end(), [&](double v) { return std::abs(v) > trigger; });
    if (hit == average.end()) {
        result.warning = "no response rose above the background after the blips: is something wrong with the reamp?";
        return result;
    }
    const int delay = static_cast<int>(hit - average.begin() - kLookahead);
    result.delay = delay;
    result.recommended = delay - kSafetyFactor;
    // A response before the blip means the trigger fired on noise or the output leads.
    if (delay < 0) result.warning = "the response starts before the blip: the output seems to lead the input";
    return result;
}

}  // namespace forge::nam::train
