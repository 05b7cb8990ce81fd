#include "models/nam/train/training_data.h"

#include "core/error.h"

#include <algorithm>

namespace forge::nam::train {
namespace {

Segment cut(std::span<const float> x, std::span<const float> y, long begin, long end, int latency) {
    // y[t + latency] is the answer to x[t]; a negative latency shifts the other way.
    Segment s;
    for (long t = begin; t < end; ++t) {
        const long u = t + latency;
        if (u < 0 || u >= static_cast<long>(y.size())) continue;
        s.x.push_back(x[static_cast<std::size_t>(t)]);
        s.y.push_back(y[static_cast<std::size_t>(u)]);
    }
    return s;
}

}  // namespace

TrainingData split_capture(std::span<const float> input, std::span<const float> output, const CaptureLayout& layout,
                           int latency) {
    check(static_cast<long>(input.size()) >= layout.length, "the input has {} samples but the {} layout needs {}",
          input.size(), layout.name, layout.length);
    TrainingData data;
    data.train = cut(input, output, layout.train_begin, layout.train_end, latency);
    data.validation = cut(input, output, layout.validation_begin, layout.length, latency);
    check(!data.train.x.empty() && !data.validation.x.empty(), "the output is too short for the {} layout", layout.name);
    return data;
}

std::vector<long> window_starts(const Segment& segment, long receptive_field, long ny) {
    const long n = static_cast<long>(segment.x.size());
    std::vector<long> starts;
    for (long start = 0; start + receptive_field - 1 + ny <= n; start += ny) starts.push_back(start);
    return starts;
}

}  // namespace forge::nam::train
