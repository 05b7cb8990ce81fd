// Learning-rate schedules: the rate for a step, as a pure function of the step.
#pragma once

#include <cstdint>

namespace forge::optim {

// Linear warmup from 0 to peak over `warmup` steps, then a cosine from peak down to
// `floor` at step `total` (and floor after it).
struct WarmupCosine {
    float peak;
    std::int64_t warmup;
    std::int64_t total;
    float floor = 0.0f;
    float at(std::int64_t step) const;
};

// Linear warmup over `warmup` steps, then a straight line from peak to `end` at `total`.
struct LinearDecay {
    float peak;
    std::int64_t warmup;
    std::int64_t total;
    float end = 0.0f;
    float at(std::int64_t step) const;
};

}  // namespace forge::optim
