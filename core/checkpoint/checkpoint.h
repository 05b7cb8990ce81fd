// A training checkpoint: parameters, optimizer state, step and seed.
//
// Two files from one base path: <base>.safetensors holds every tensor ("param.<name>" and
// "optimizer.<name>"), <base>.json the small rest (step, seed, optimizer step, format).
// Each is written atomically; the JSON is written last, so a checkpoint whose JSON exists
// is complete. Loading restores the exact bytes, so training resumes bit-exactly.
#pragma once

#include "core/checkpoint/safetensors.h"
#include "core/optim/optimizer.h"

#include <cstdint>
#include <filesystem>
#include <string>

namespace forge::checkpoint {

struct Checkpoint {
    TensorMap params;
    optim::OptimizerState optimizer;
    std::int64_t step = 0;
    std::uint64_t seed = 0;
};

void save_checkpoint(const std::filesystem::path& base, const Checkpoint& checkpoint);
Checkpoint load_checkpoint(const std::filesystem::path& base);

// Copy saved values into live parameters in place (every handle to them sees the values).
void restore_params(const TensorMap& saved, const TensorMap& live);

}  // namespace forge::checkpoint
