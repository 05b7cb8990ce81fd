// A llama-family language model loaded from a GGUF file: hyperparameters and weights, checked
// and ready to run. The file stays mapped for the model's lifetime; weights are read in place.
// Running it (KV cache, activations) is a Session's job (models/llm/session.h), so one model
// can serve several conversations.
#pragma once

#include "core/gguf/gguf_file.h"
#include "models/llm/hparams.h"
#include "models/llm/lora/lora_stack.h"
#include "models/llm/weights.h"

#include <memory>
#include <span>
#include <string>

namespace forge::llm {

class Model {
public:
    // Throws FormatError naming the file for anything it cannot run: not a GGUF, an
    // unsupported architecture, a missing or mis-shaped tensor, an undecodable dtype.
    static Model load(const std::string& path);
    static Model from_file(gguf::GgufFile file);

    const gguf::GgufFile& file() const { return file_; }
    const Hparams& hparams() const { return hparams_; }
    const ModelWeights& weights() const { return weights_; }

    // LoRA adapters applied at run time (`--lora`), checked against this model; every Forward
    // made afterwards applies them, at the stack's scales unless told others per sequence.
    void attach_lora(std::span<const lora::LoraSpec> adapters);
    // nullptr when no adapter is attached.
    const lora::LoraStack* lora() const { return lora_.get(); }

private:
    Model(gguf::GgufFile file, Hparams hparams, ModelWeights weights);

    gguf::GgufFile file_;
    Hparams hparams_;
    ModelWeights weights_;
    std::shared_ptr<const lora::LoraStack> lora_;
};

}  // namespace forge::llm
