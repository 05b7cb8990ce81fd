// The safetensors format (huggingface/safetensors): an 8-byte little-endian header length,
// a JSON header mapping each tensor name to {dtype, shape, data_offsets} (plus an optional
// "__metadata__" object of strings), then the raw little-endian tensor bytes. Readable by
// Python's `safetensors` and, through it, by torch.
#pragma once

#include "core/tensor.h"

#include <filesystem>
#include <map>
#include <span>
#include <string>

namespace forge::checkpoint {

using TensorMap = std::map<std::string, Tensor>;
using Metadata = std::map<std::string, std::string>;

// Written atomically (temporary file + rename). f32, f16, bf16, f64 and integer dtypes.
void write_safetensors(const std::filesystem::path& path, const TensorMap& tensors, const Metadata& metadata = {});

// Every tensor, copied into fresh contiguous tensors; metadata into *metadata if given.
// Anything malformed is a FormatError naming the file and the tensor; nothing is allocated
// for a tensor before its size is checked against the bytes that are there.
TensorMap read_safetensors(const std::filesystem::path& path, Metadata* metadata = nullptr);

// The same from bytes in memory; `source` names them in errors.
TensorMap parse_safetensors(std::span<const std::byte> bytes, const std::string& source, Metadata* metadata = nullptr);

// Headers nest two levels (tensor -> fields); anything much deeper is not a safetensors file.
inline constexpr int kMaxHeaderDepth = 8;

}  // namespace forge::checkpoint
