#include "models/gpt/resume_checks.h"

#include "core/error.h"

namespace forge::gpt {

void check_same_settings(const nlohmann::json& saved, const nlohmann::json& now, const std::filesystem::path& path) {
    for (const auto& [key, value] : now.items()) {
        if (key == "steps") continue;  // checked against the schedule by check_same_schedule
        check(saved.contains(key) && saved[key] == value,
              "--resume: {} was written with {} = {}, this command asks for {} (use the same flags or a new --out)",
              path.string(), key, saved.contains(key) ? saved[key].dump() : "nothing", value.dump());
    }
}

void check_same_schedule(const nlohmann::json& saved, const LrSchedule& schedule, std::int64_t steps, std::int64_t done,
                         const std::filesystem::path& path) {
    const auto saved_steps = saved.at("steps").get<std::int64_t>();  // an integer >= 1 (read by the trainer)
    // A step past either run's end is a damaged file; it would also bound the loop below.
    check(done <= saved_steps, "--resume: {} is damaged: written after step {} of a {}-step run", path.string(), done,
          saved_steps);
    check(done <= steps, "--resume: {} was written after {} steps, more than the {} steps asked for, so use --steps {} or a new --out",
          path.string(), done, steps, saved_steps);
    check(saved_steps == steps || same_rates_so_far(schedule, saved_steps, steps, done),
          "--resume: {} was written after {} of {} steps; {} steps would change the learning rates of steps already "
          "taken (the warmdown has begun), so use --steps {} or a new --out",
          path.string(), done, saved_steps, steps, saved_steps);
}

}  // namespace forge::gpt
