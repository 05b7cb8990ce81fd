// Typed, shape-checked access to the tensors of a GGUF file by name: the lookup every model
// loader needs (LLM weights, exporters, speech models). Errors are FormatErrors naming the file
// and the tensor: missing, a shape other than expected, a dtype forge cannot decode.
#pragma once

#include "core/gguf/gguf_file.h"
#include "core/shape.h"
#include "core/tensor.h"

#include <string>

namespace forge::gguf {

class TensorLoader {
public:
    explicit TensorLoader(const GgufFile& file) : file_(file) {}

    const GgufFile& file() const { return file_; }
    bool has(const std::string& name) const { return file_.find_tensor(name) != nullptr; }

    // The tensor `name` with forge shape `shape` (outermost first), as stored (mapped, not copied).
    Tensor raw(const std::string& name, const Shape& shape) const;
    // A 1-D parameter (a norm weight, a bias) as f32, widened once if stored otherwise.
    Tensor vector_f32(const std::string& name, std::int64_t size) const;
    // A weight matrix [rows, cols] in a dtype the inference front-end multiplies as stored (f32,
    // f16, every block format with a quantized dot kernel); anything else (bf16, ...) widened
    // to f32 once.
    Tensor matrix(const std::string& name, std::int64_t rows, std::int64_t cols) const;
    // `count` such matrices stored as one 3-D tensor [count, rows, cols] (a mixture-of-experts
    // layer's experts), under the same dtype rule.
    Tensor matrices(const std::string& name, std::int64_t count, std::int64_t rows, std::int64_t cols) const;

private:
    const GgufFile& file_;
};

}  // namespace forge::gguf
