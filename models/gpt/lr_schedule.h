// The learning-rate schedule of forge's trainers with a run folder (`forge train gpt|sft|lora`),
// nanochat's: a linear warmup over the first warmup_ratio of the steps, constant, then a linear
// warmdown over the last warmdown_ratio of them to final_lr_frac of the peak rate. Each step's
// multiplier is a pure function of (step, total), so a resumed run takes the same rates.
#pragma once

#include <cstdint>

namespace forge::gpt {

struct LrSchedule {
    float warmup_ratio = 0.0f;
    float warmdown_ratio = 0.2f;
    float final_lr_frac = 0.0f;
};

// The learning-rate multiplier of step `step` (0-based) of `total`.
float lr_multiplier(const LrSchedule& schedule, std::int64_t step, std::int64_t total);

// Whether the first `done` steps take the same rates in a run of `a` steps as in one of `b`:
// then a checkpoint taken after them continues as either run, bit for bit (shortening or
// lengthening a run before its warmdown starts).
bool same_rates_so_far(const LrSchedule& schedule, std::int64_t a, std::int64_t b, std::int64_t done);

}  // namespace forge::gpt
