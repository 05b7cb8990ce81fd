#include "core/optim/schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace forge::optim {
namespace {

// Fraction of the decay phase done at `step`, in [0, 1].
double decay_progress(std::int64_t step, std::int64_t warmup, std::int64_t total) {
    if (total <= warmup) return 1.0;
    return std::clamp(static_cast<double>(step - warmup) / static_cast<double>(total - warmup), 0.0, 1.0);
}

// Warmup reaches the peak at step `warmup` (step counts from 0: step 0 gets peak/warmup).
double warmup_factor(std::int64_t step, std::int64_t warmup) {
    return static_cast<double>(step + 1) / static_cast<double>(warmup);
}

}  // namespace

float WarmupCosine::at(std::int64_t step) const {
    if (step < warmup) return static_cast<float>(peak * warmup_factor(step, warmup));
    const double cosine = 0.5 * (1.0 + std::cos(std::numbers::pi * decay_progress(step, warmup, total)));
    return static_cast<float>(floor + (peak - floor) * cosine);
}

float LinearDecay::at(std::int64_t step) const {
    if (step < warmup) return static_cast<float>(peak * warmup_factor(step, warmup));
    return static_cast<float>(peak + (end - peak) * decay_progress(step, warmup, total));
}

}  // namespace forge::optim
