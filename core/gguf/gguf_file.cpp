#include "core/gguf/gguf_file.h"

#include "core/error.h"

#include <fmt/ranges.h>

namespace forge::gguf {

std::int64_t TensorInfo::numel() const {
    std::int64_t n = 1;
    for (const auto d : dims) n *= d;
    return n;
}

Shape TensorInfo::shape() const {
    Shape shape;
    for (auto it = dims.rbegin(); it != dims.rend(); ++it) shape.push_back(*it);
    return shape;
}

std::string TensorInfo::dims_text() const { return fmt::format("[{}]", fmt::join(dims, ", ")); }

const Value* GgufFile::find(std::string_view key) const {
    for (const auto& kv : metadata_) {
        if (kv.key == key) return &kv.value;
    }
    return nullptr;
}

const TensorInfo* GgufFile::find_tensor(std::string_view name) const {
    for (const auto& info : tensors_) {
        if (info.name == name) return &info;
    }
    return nullptr;
}

const TensorInfo& GgufFile::tensor_info(std::string_view name) const {
    const TensorInfo* info = find_tensor(name);
    check(info != nullptr, "{}: no tensor named '{}'", source_, name);
    return *info;
}

std::span<const std::byte> GgufFile::tensor_bytes(const TensorInfo& info) const {
    // Bounds were checked when the file was parsed.
    return bytes_.subspan(data_offset_ + static_cast<std::size_t>(info.offset), static_cast<std::size_t>(info.nbytes));
}

Tensor GgufFile::tensor(const TensorInfo& info) const {
    check(mapping_ != nullptr, "{}: tensors can only be borrowed from a file opened with GgufFile::open", source_);
    std::byte* data = mapping_->data() + data_offset_ + info.offset;
    // The release hook holds the mapping: it outlives every tensor that points into it.
    auto storage = Storage::borrow(data, static_cast<std::size_t>(info.nbytes), [mapping = mapping_] {});
    const Shape shape = info.shape();
    return Tensor(std::move(storage), info.dtype, shape, contiguous_strides(shape));
}

}  // namespace forge::gguf
