#include "core/gguf/tensor_loader.h"

#include "core/error.h"
#include "core/quant/quantize.h"

#include <fmt/format.h>

namespace forge::gguf {

Tensor TensorLoader::raw(const std::string& name, const Shape& shape) const {
    const TensorInfo* info = file_.find_tensor(name);
    if (info == nullptr) fail_format("{}: tensor {} is missing", file_.source(), name);
    if (info->shape() != shape) {
        fail_format("{}: tensor {} has shape {}, expected {}", file_.source(), name,
                    info->shape().to_string(), shape.to_string());
    }
    if (!quant::can_decode(info->dtype)) {
        fail_format("{}: tensor {} has dtype {}, which forge cannot decode", file_.source(), name,
                    dtype_name(info->dtype));
    }
    return file_.tensor(*info);
}

Tensor TensorLoader::vector_f32(const std::string& name, std::int64_t size) const {
    const Tensor t = raw(name, Shape{size});
    return t.dtype() == DType::F32 ? t : quant::dequantize(t);
}

namespace {

// Weights the inference front-end multiplies as stored stay mapped; others are widened to f32.
Tensor multipliable(const Tensor& t) {
    const bool direct = t.dtype() == DType::F32 || t.dtype() == DType::F16 || quant::has_dot_kernel(t.dtype());
    return direct ? t : quant::dequantize(t);
}

}  // namespace

Tensor TensorLoader::matrix(const std::string& name, std::int64_t rows, std::int64_t cols) const {
    return multipliable(raw(name, Shape{rows, cols}));
}

Tensor TensorLoader::matrices(const std::string& name, std::int64_t count, std::int64_t rows, std::int64_t cols) const {
    return multipliable(raw(name, Shape{count, rows, cols}));
}

}  // namespace forge::gguf
