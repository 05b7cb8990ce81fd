// `forge lora merge BASE.gguf A.gguf[:SCALE]... OUT.gguf [--quantize TYPE]`, as llama.cpp's
// llama-export-lora: each adapted weight becomes W + sum over adapters of
// (alpha / r) * scale * B A, computed in f32 from the dequantized base and stored in the
// base weight's type (or TYPE); every other tensor and all metadata are copied byte for byte.
// The merged file runs without the adapters and gives the logits of base + adapters.
#pragma once

#include "core/dtype.h"
#include "models/llm/lora/lora_stack.h"

#include <optional>
#include <string>
#include <vector>

namespace forge::llm::lora {

struct MergeRequest {
    std::string base;
    std::vector<LoraSpec> adapters;
    std::string output;
    std::optional<DType> merged_type;  // the adapted weights' type; default: each one's base type
};

struct MergeReport {
    std::size_t merged_tensors = 0;
    std::size_t copied_tensors = 0;
};

// Checks the adapters against the base as --lora does (architecture, names, shapes), then
// writes the output atomically. Errors name the file and the tensor.
MergeReport merge_adapters(const MergeRequest& request);

}  // namespace forge::llm::lora
