// A llama-family language model loaded from a GGUF file: hyperparameters and weights, checked
// and ready to run. The file stays mapped for the model's lifetime; weights are read in place.
// Running it (KV cache, activations) is a Session's job (models/llm/session.h), so one model
// can serve several conversations.
#pragma once

#include "core/gguf/gguf_file.h"
#include "models/llm/hparams.h"
#include "models/llm/weights.h"

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

private:
    Model(gguf::GgufFile file, Hparams hparams, ModelWeights weights);

    gguf::GgufFile file_;
    Hparams hparams_;
    ModelWeights weights_;
};

}  // namespace forge::llm
