// A training run's checkpoint: one safetensors file holding the parameters ("param.<name>"),
// every optimizer buffer ("optimizer.<name>") and, in its metadata, the step and the run's
// settings. One file written atomically (temporary + rename), so a kill at any moment
// leaves either the previous checkpoint or the new one, never a mix.
#pragma once

#include "models/gpt/gpt_model.h"
#include "models/gpt/gpt_optimizer.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>

namespace forge::gpt {

void save_run_checkpoint(const std::filesystem::path& path, const GptModel& model, const GptOptimizer& optimizer,
                         std::int64_t step, const nlohmann::json& settings);

// The run settings stored in a checkpoint (to compare with the command line before loading).
nlohmann::json read_checkpoint_settings(const std::filesystem::path& path);

// Restores only the parameters (evaluation, export, tests).
void load_checkpoint_params(const std::filesystem::path& path, GptModel& model);

// Restores parameters and optimizer state in place; returns the step the checkpoint was taken after.
std::int64_t load_run_checkpoint(const std::filesystem::path& path, GptModel& model, GptOptimizer& optimizer);

}  // namespace forge::gpt
