// Writing a Parakeet model in the GGUF layout that read_parakeet_config and ParakeetModel::load
// read (docs/ASR.md): every `parakeet.*` key of the configuration, the log-mel filterbank and
// window, every parameter under its NeMo name as f32. What `forge train asr` exports. The file
// appears only when complete (written to a temporary name, then renamed).
#pragma once

#include "models/asr/parakeet_model.h"

#include <filesystem>
#include <span>
#include <string>

namespace forge::asr {

// filterbank [n_mels, n_fft/2 + 1]; window [win_length]; `name` goes to general.name.
void write_parakeet_gguf(const std::filesystem::path& path, const ParakeetModel& model, const Tensor& filterbank,
                         std::span<const float> window, const std::string& name);

}  // namespace forge::asr
