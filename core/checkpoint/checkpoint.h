// A training checkpoint: parameters, optimizer state, step and seed.
//
// Two files from one base path: <base>.json holds the small rest (step, seed, optimizer step,
// format) and names the tensors file, <base>.0.safetensors or <base>.1.safetensors, that holds
// every tensor ("param.<name>" and "optimizer.<name>"). Saving writes the tensors to the file
// the JSON does not name, then the JSON (each atomically), then removes the old tensors: a
// kill at any moment leaves the previous checkpoint or the new one, complete
// (tools/crash_safety.sh checks this). Loading restores the exact bytes, so training resumes
// bit-exactly.
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
