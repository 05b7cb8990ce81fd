// What `--resume` checks before it continues a run (`forge train gpt|sft|lora`): the command's
// settings against those the checkpoint was written with, so that the continued run is the
// uninterrupted one, bit for bit, or a clear error naming the setting that differs.
#pragma once

#include "models/gpt/lr_schedule.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>

namespace forge::gpt {

// Every setting of `now` but "steps" must equal the checkpoint's (`saved`, read from `path`).
void check_same_settings(const nlohmann::json& saved, const nlohmann::json& now, const std::filesystem::path& path);

// A checkpoint taken after `done` steps of a run of saved["steps"] continues as a run of
// `steps` exactly when the two runs' rates agree on every step so far (the data order and the
// optimizer's state depend on the step alone): shortening or lengthening the run before its
// warmdown starts is an uninterrupted run of the new length.
void check_same_schedule(const nlohmann::json& saved, const LrSchedule& schedule, std::int64_t steps, std::int64_t done,
                         const std::filesystem::path& path);

}  // namespace forge::gpt
