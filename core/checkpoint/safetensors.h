// The safetensors format (huggingface/safetensors): an 8-byte little-endian header length,
// a JSON header mapping each tensor name to {dtype, shape, data_offsets} (plus an optional
// "__metadata__" object of strings), then the raw little-endian tensor bytes. Readable by
// Python's `safetensors` and, through it, by torch.
#pragma once

#include "core/tensor.h"

#include <filesystem>
#include <map>
#include <string>

namespace forge::checkpoint {

using TensorMap = std::map<std::string, Tensor>;
using Metadata = std::map<std::string, std::string>;

// Written atomically (temporary file + rename). f32, f16, bf16, f64 and integer dtypes.
void write_safetensors(const std::filesystem::path& path, const TensorMap& tensors, const Metadata& metadata = {});

// Every tensor, copied into fresh contiguous tensors; metadata into *metadata if given.
TensorMap read_safetensors(const std::filesystem::path& path, Metadata* metadata = nullptr);

}  // namespace forge::checkpoint
