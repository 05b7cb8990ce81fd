// Quantizing a llama-family GGUF model: llama-quantize for the types forge encodes byte-exactly
// (`forge quantize` is the command line over it). Which type each tensor gets is the Mixture's
// decision (quant_mixture.h); this is the pipeline around it: plan every tensor, then convert
// them one at a time, read from the mapped input and written straight to the output, which
// appears only when complete.
#pragma once

#include "core/dtype.h"
#include "core/gguf/gguf_file.h"
#include "models/llm/quant_mixture.h"

#include <cstdint>
#include <functional>
#include <string>

namespace forge::llm {

struct QuantizeRequest {
    std::string input;
    std::string output;
    FileType type;
    bool pure = false;              // every quantizable tensor gets the type: no mixtures
    bool allow_requantize = false;  // re-encode tensors that are already quantized
};

// One tensor as it is written: the caller prints it (the command's progress line).
struct TensorWritten {
    std::size_t step;  // 1-based, in output order
    std::size_t count;
    const gguf::TensorInfo& source;  // name, dims, type and bytes in the input
    DType target;
    std::uint64_t bytes_out;
};

// A tensor the policy wanted in one type but that had to take another (its row length is not
// a multiple of the type's block); `reason` says which and why.
struct TensorFallback {
    std::string name;
    std::string reason;
};

struct QuantizeSummary {
    std::size_t tensors = 0;
    std::uint64_t bytes_in = 0, bytes_out = 0;
    std::size_t fallbacks = 0;
};

// What the mixture needs to know about the model, from its metadata (a missing key is 0).
ModelFacts read_model_facts(const gguf::GgufFile& file);

// Write request.output. `on_fallback` is called for each fallback while the tensors are
// planned, before anything is written; `on_written` once per tensor as it is written.
QuantizeSummary quantize_model(const QuantizeRequest& request,
                               const std::function<void(const TensorFallback&)>& on_fallback,
                               const std::function<void(const TensorWritten&)>& on_written);

}  // namespace forge::llm
