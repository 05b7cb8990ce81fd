#include "nn/parameter_set.h"

#include "core/autograd/variable.h"
#include "core/error.h"
#include "core/gguf/gguf_file.h"
#include "core/gguf/gguf_writer.h"
#include "core/quant/quantize.h"

#include <algorithm>
#include <cstring>

namespace forge::nn {
namespace {

void copy_into(const Tensor& target, const Tensor& source, std::string_view name, std::string_view origin) {
    check(source.shape() == target.shape(), "{}: parameter '{}' has shape {}, the model wants {}", origin, name,
          source.shape().to_string(), target.shape().to_string());
    const Tensor f32 = source.to(DType::F32).contiguous();
    std::memcpy(target.raw_data(), f32.raw_data(), target.nbytes());
}

}  // namespace

Tensor ParameterSet::add(std::string name, const Shape& shape, const Init& init, bool trainable) {
    const std::uint64_t key = parameter_key(seed_, name);
    return add(std::move(name), init_tensor(shape, init, key), trainable);
}

Tensor ParameterSet::add(std::string name, const Tensor& values, bool trainable) {
    check(!contains(name), "parameter '{}' is added twice", name);
    Tensor value = values.to(DType::F32).clone();
    if (trainable) value = ag::requires_grad(value);
    params_.push_back({std::move(name), value, trainable});
    return value;
}

std::vector<Tensor> ParameterSet::trainable() const {
    std::vector<Tensor> out;
    for (const auto& p : params_) {
        if (p.trainable) out.push_back(p.value);
    }
    return out;
}

bool ParameterSet::contains(std::string_view name) const {
    return std::any_of(params_.begin(), params_.end(), [&](const Parameter& p) { return p.name == name; });
}

const Tensor& ParameterSet::at(std::string_view name) const {
    for (const auto& p : params_) {
        if (p.name == name) return p.value;
    }
    fail("no parameter named '{}'", name);
}

std::int64_t ParameterSet::numel() const {
    std::int64_t n = 0;
    for (const auto& p : params_) n += p.value.numel();
    return n;
}

checkpoint::TensorMap ParameterSet::state_dict() const {
    checkpoint::TensorMap out;
    for (const auto& p : params_) out[p.name] = p.value;
    return out;
}

void ParameterSet::load_state_dict(const checkpoint::TensorMap& values, std::string_view source) {
    for (const auto& [name, _] : values) {
        check(contains(name), "{}: '{}' is not a parameter of this model", source, name);
    }
    for (const auto& p : params_) {
        const auto it = values.find(p.name);
        check(it != values.end(), "{}: parameter '{}' is missing", source, p.name);
        copy_into(p.value, it->second, p.name, source);
    }
}

void ParameterSet::save_safetensors(const std::filesystem::path& path) const {
    checkpoint::write_safetensors(path, state_dict());
}

void ParameterSet::load_safetensors(const std::filesystem::path& path) {
    load_state_dict(checkpoint::read_safetensors(path), path.string());
}

void add_f32_to_gguf(gguf::GgufWriter& writer, const std::string& name, const Tensor& tensor) {
    const Tensor value = tensor.to(DType::F32).contiguous();
    std::vector<std::int64_t> dims(value.shape().begin(), value.shape().end());
    std::reverse(dims.begin(), dims.end());  // GGUF lists the innermost axis first
    writer.add_tensor(name, DType::F32, std::move(dims), [value](std::span<std::byte> out) {
        std::memcpy(out.data(), value.raw_data(), out.size());
    });
}

void ParameterSet::add_to_gguf(gguf::GgufWriter& writer) const {
    for (const auto& p : params_) add_f32_to_gguf(writer, p.name, p.value);
}

void ParameterSet::load_gguf(const gguf::GgufFile& file) {
    for (const auto& p : params_) {
        const gguf::TensorInfo* info = file.find_tensor(p.name);
        check(info != nullptr, "{}: no tensor '{}'", file.source(), p.name);
        check(quant::can_decode(info->dtype), "{}: tensor '{}' is {}, which forge cannot decode", file.source(), p.name,
              dtype_name(info->dtype));
        // Copied out of the file's bytes (works for parsed, not only mapped, files); a quantized
        // tensor (a large linear of a converted speech model) is decoded to f32 once, here.
        Tensor stored = Tensor::empty(info->shape(), DType::F32);
        quant::dequantize_bytes(info->dtype, file.tensor_bytes(*info), stored.span<float>());
        copy_into(p.value, stored, p.name, file.source());
    }
}

}  // namespace forge::nn
