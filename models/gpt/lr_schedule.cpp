#include "models/gpt/lr_schedule.h"

#include <cmath>

namespace forge::gpt {

float lr_multiplier(const LrSchedule& c, std::int64_t step, std::int64_t total) {
    const auto warmup = static_cast<std::int64_t>(std::llround(c.warmup_ratio * static_cast<double>(total)));
    const auto warmdown = static_cast<std::int64_t>(std::llround(c.warmdown_ratio * static_cast<double>(total)));
    if (step < warmup) return static_cast<float>(step + 1) / static_cast<float>(warmup);
    if (step <= total - warmdown) return 1.0f;
    const float progress = static_cast<float>(total - step) / static_cast<float>(warmdown);
    return progress + (1.0f - progress) * c.final_lr_frac;
}

bool same_rates_so_far(const LrSchedule& schedule, std::int64_t a, std::int64_t b, std::int64_t done) {
    for (std::int64_t s = 0; s < done; ++s) {
        if (lr_multiplier(schedule, s, a) != lr_multiplier(schedule, s, b)) return false;
    }
    return true;
}

}  // namespace forge::gpt
