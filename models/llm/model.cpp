#include "models/llm/model.h"

#include "core/infer/interleaved_weights.h"

#include <spdlog/spdlog.h>

namespace forge::llm {

Model::Model(gguf::GgufFile file, Hparams hparams, ModelWeights weights)
    : file_(std::move(file)), hparams_(std::move(hparams)), weights_(std::move(weights)) {}

Model Model::load(const std::string& path) { return from_file(gguf::GgufFile::open(path)); }

Model Model::from_file(gguf::GgufFile file) {
    Hparams hparams = read_hparams(file);
    if (!infer::InterleavedWeights::repacks(file)) {
        spdlog::info("{}: {:.1f} GiB, more than half of this machine's memory: weights are read from the mapping "
                     "in place, not repacked (slower prefill, no copy held in memory)",
                     file.source(), static_cast<double>(file.bytes().size()) / (1u << 30));
    }
    ModelWeights weights = load_weights(file, hparams);
    return Model(std::move(file), std::move(hparams), std::move(weights));
}

void Model::attach_lora(std::span<const lora::LoraSpec> adapters) {
    lora_ = adapters.empty() ? nullptr
                             : std::make_shared<const lora::LoraStack>(lora::LoraStack::load(file_, hparams_, adapters));
}

}  // namespace forge::llm
