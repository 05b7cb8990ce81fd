// The committed goldens of tools/asr_oracle.py: random-weight Parakeet models in test/data/asr/
// and, beside each, <variant>.expected.gguf with PyTorch's mel, encoder output and tokens.
#pragma once

#include "core/audio/audio_file.h"
#include "core/gguf/gguf_file.h"
#include "core/gguf/tensor_loader.h"

#include <filesystem>
#include <string>
#include <vector>

namespace forge::asr::testing {

inline std::filesystem::path data_dir() { return std::filesystem::path(FORGE_TEST_DATA_DIR) / "asr"; }
inline std::filesystem::path model_path(const std::string& variant) { return data_dir() / (variant + ".gguf"); }

// The oracle's test clip as the pipeline reads it (16-bit PCM, 16 kHz mono).
inline std::vector<float> clip() { return audio::read_audio(data_dir() / "chirps.wav").samples; }

struct Expected {
    gguf::GgufFile file;

    explicit Expected(const std::string& variant)
        : file(gguf::GgufFile::open((data_dir() / (variant + ".expected.gguf")).string())) {}

    // A stored f32 tensor with its numpy shape.
    Tensor tensor(const std::string& name) const {
        const gguf::TensorInfo& info = file.tensor_info(name);
        Shape shape;
        for (auto it = info.dims.rbegin(); it != info.dims.rend(); ++it) shape.push_back(*it);
        return gguf::TensorLoader(file).raw(name, shape).contiguous();
    }
    std::vector<std::int64_t> ints(const std::string& key) const {
        std::vector<std::int64_t> out;
        for (const gguf::Value& v : file.find(key)->array()->items) out.push_back(*v.as_int());
        return out;
    }
};

}  // namespace forge::asr::testing
