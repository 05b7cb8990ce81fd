#include "core/tensor.h"

#include "core/tensor_copy.h"
#include "kernels/half.h"

#include <cstring>
#include <numeric>
#include <ostream>

namespace forge {

Tensor::Tensor(std::shared_ptr<Storage> storage, DType dtype, const Shape& shape, const Strides& strides,
               std::int64_t offset)
    : storage_(std::move(storage)), dtype_(dtype), shape_(shape), strides_(strides), offset_(offset) {
    check(shape_.rank() == strides_.rank(), "shape {} and strides {} differ in rank", shape_.to_string(),
          strides_.to_string());
    for (auto size : shape_) check(size >= 0, "negative size in shape {}", shape_.to_string());
    if (is_quantized(dtype_)) {
        const int block = dtype_traits(dtype_).block_size;
        check(rank() >= 1 && strides_[rank() - 1] == 1 && shape_[rank() - 1] % block == 0,
              "a {} tensor needs a contiguous innermost axis that is a multiple of {}, got shape {}",
              dtype_name(dtype_), block, shape_.to_string());
    }
}

Tensor Tensor::empty(const Shape& shape, DType dtype) {
    const Strides strides = contiguous_strides(shape);
    if (is_quantized(dtype) && shape.rank() >= 1) {
        check(shape[shape.rank() - 1] % dtype_traits(dtype).block_size == 0,
              "innermost size {} of a {} tensor is not a multiple of its block size {}",
              shape[shape.rank() - 1], dtype_name(dtype), dtype_traits(dtype).block_size);
    }
    const auto bytes = dtype_bytes(dtype, static_cast<std::size_t>(shape.product()));
    return Tensor(Storage::allocate(bytes), dtype, shape, strides, 0);
}

Tensor Tensor::zeros(const Shape& shape, DType dtype) {
    Tensor tensor = empty(shape, dtype);
    std::memset(tensor.raw_data(), 0, tensor.nbytes());  // all-zero bits is 0 in every dtype
    return tensor;
}

Tensor Tensor::full(const Shape& shape, float value) {
    Tensor tensor = empty(shape, DType::F32);
    std::fill_n(tensor.data<float>(), tensor.numel(), value);
    return tensor;
}

template <typename T>
Tensor Tensor::from(std::span<const T> values, const Shape& shape) {
    check(static_cast<std::int64_t>(values.size()) == shape.product(),
          "{} values cannot fill a tensor of shape {}", values.size(), shape.to_string());
    Tensor tensor = empty(shape, DTypeOf<T>::value);
    std::copy(values.begin(), values.end(), tensor.data<T>());
    return tensor;
}
template Tensor Tensor::from<float>(std::span<const float>, const Shape&);
template Tensor Tensor::from<double>(std::span<const double>, const Shape&);
template Tensor Tensor::from<std::int8_t>(std::span<const std::int8_t>, const Shape&);
template Tensor Tensor::from<std::int16_t>(std::span<const std::int16_t>, const Shape&);
template Tensor Tensor::from<std::int32_t>(std::span<const std::int32_t>, const Shape&);
template Tensor Tensor::from<std::int64_t>(std::span<const std::int64_t>, const Shape&);
template Tensor Tensor::from<std::uint8_t>(std::span<const std::uint8_t>, const Shape&);

Tensor Tensor::arange(std::int64_t n) {
    Tensor tensor = empty({n}, DType::F32);
    std::iota(tensor.data<float>(), tensor.data<float>() + n, 0.0f);
    return tensor;
}

bool Tensor::is_contiguous() const {
    std::int64_t expected = 1;
    for (int axis = rank() - 1; axis >= 0; --axis) {
        if (shape_[axis] != 1 && strides_[axis] != expected) return false;
        expected *= shape_[axis];
    }
    return true;
}

std::byte* Tensor::raw_data() const {
    check(defined(), "use of an undefined tensor");
    return storage_->data() + dtype_bytes(dtype_, static_cast<std::size_t>(offset_));
}

namespace {

float element_as_float(const std::byte* p, DType dtype) {
    auto load = [p]<typename T>(T*) {
        T value;
        std::memcpy(&value, p, sizeof(T));
        return value;
    };
    switch (dtype) {
        case DType::F32: return load(static_cast<float*>(nullptr));
        case DType::F16: return kernels::f16_to_f32(load(static_cast<std::uint16_t*>(nullptr)));
        case DType::BF16: return kernels::bf16_to_f32(load(static_cast<std::uint16_t*>(nullptr)));
        case DType::F64: return static_cast<float>(load(static_cast<double*>(nullptr)));
        case DType::I8: return load(static_cast<std::int8_t*>(nullptr));
        case DType::I16: return load(static_cast<std::int16_t*>(nullptr));
        case DType::I32: return static_cast<float>(load(static_cast<std::int32_t*>(nullptr)));
        case DType::I64: return static_cast<float>(load(static_cast<std::int64_t*>(nullptr)));
        case DType::U8: return load(static_cast<std::uint8_t*>(nullptr));
        case DType::Q4_0: case DType::Q4_1: case DType::Q5_0: case DType::Q5_1: case DType::Q8_0:
        case DType::Q8_1: case DType::Q2_K: case DType::Q3_K: case DType::Q4_K: case DType::Q5_K:
        case DType::Q6_K: case DType::Q8_K: case DType::IQ2_XXS: case DType::IQ2_XS:
        case DType::IQ3_XXS: case DType::IQ1_S: case DType::IQ4_NL: case DType::IQ3_S:
        case DType::IQ2_S: case DType::IQ4_XS: case DType::IQ1_M: case DType::TQ1_0:
        case DType::TQ2_0: case DType::MXFP4:
            break;
    }
    fail("element access is not defined for block-quantized dtype {}", dtype_name(dtype));
}

}  // namespace

float Tensor::at(std::span<const std::int64_t> index) const {
    check(static_cast<int>(index.size()) == rank(), "index of {} values for a tensor of rank {}",
          index.size(), rank());
    std::int64_t element = offset_;
    for (int axis = 0; axis < rank(); ++axis) {
        const auto i = index[static_cast<std::size_t>(axis)];
        check(i >= 0 && i < shape_[axis], "index {} out of range for axis {} of size {}", i, axis, shape_[axis]);
        element += i * strides_[axis];
    }
    return element_as_float(storage_->data() + dtype_bytes(dtype_, static_cast<std::size_t>(element)), dtype_);
}

float Tensor::item() const {
    check(numel() == 1, "item() needs a one-element tensor, this one has shape {}", shape_.to_string());
    return element_as_float(raw_data(), dtype_);
}

std::vector<float> Tensor::to_vector() const {
    const Tensor packed = contiguous();
    std::vector<float> values(static_cast<std::size_t>(numel()));
    const auto element_bytes = static_cast<std::size_t>(dtype_traits(dtype_).block_bytes);
    check(!is_quantized(dtype_), "to_vector() of a {} tensor: dequantize it first", dtype_name(dtype_));
    const std::byte* p = packed.raw_data();
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = element_as_float(p + i * element_bytes, dtype_);
    return values;
}

// --- views ------------------------------------------------------------------------------

Tensor Tensor::narrow(int axis, std::int64_t start, std::int64_t length) const {
    const int a = normalize_axis(axis, rank());
    check(start >= 0 && length >= 0 && start + length <= shape_[a],
          "narrow({}, {}, {}) is out of range for axis of size {}", axis, start, length, shape_[a]);
    if (is_quantized(dtype_) && a == rank() - 1) {
        const int block = dtype_traits(dtype_).block_size;
        check(start % block == 0 && length % block == 0, "narrowing a {} row must keep whole blocks of {}",
              dtype_name(dtype_), block);
    }
    Shape shape = shape_;
    shape[a] = length;
    return Tensor(storage_, dtype_, shape, strides_, offset_ + start * strides_[a]);
}

Tensor Tensor::select(int axis, std::int64_t index) const {
    const int a = normalize_axis(axis, rank());
    check(index >= 0 && index < shape_[a], "select index {} out of range for axis of size {}", index, shape_[a]);
    Shape shape = shape_;
    Strides strides = strides_;
    shape.erase(a);
    strides.erase(a);
    return Tensor(storage_, dtype_, shape, strides, offset_ + index * strides_[a]);
}

Tensor Tensor::permute(std::span<const int> order) const {
    check(static_cast<int>(order.size()) == rank(), "permute needs {} axes, got {}", rank(), order.size());
    Shape shape = shape_;
    Strides strides = strides_;
    std::array<bool, kMaxRank> used{};
    for (int i = 0; i < rank(); ++i) {
        const int from = normalize_axis(order[static_cast<std::size_t>(i)], rank());
        check(!used[static_cast<std::size_t>(from)], "permute names axis {} twice", from);
        used[static_cast<std::size_t>(from)] = true;
        shape[i] = shape_[from];
        strides[i] = strides_[from];
    }
    return Tensor(storage_, dtype_, shape, strides, offset_);
}

Tensor Tensor::transpose(int axis_a, int axis_b) const {
    std::array<int, kMaxRank> order{};
    std::iota(order.begin(), order.begin() + rank(), 0);
    std::swap(order[static_cast<std::size_t>(normalize_axis(axis_a, rank()))],
              order[static_cast<std::size_t>(normalize_axis(axis_b, rank()))]);
    return permute(std::span<const int>(order.data(), static_cast<std::size_t>(rank())));
}

Tensor Tensor::unsqueeze(int axis) const {
    const int a = axis < 0 ? axis + rank() + 1 : axis;
    check(a >= 0 && a <= rank(), "unsqueeze axis {} out of range for rank {}", axis, rank());
    Shape shape = shape_;
    Strides strides = strides_;
    const std::int64_t stride = a < rank() ? strides_[a] * shape_[a] : 1;
    shape.insert(a, 1);
    strides.insert(a, stride);
    return Tensor(storage_, dtype_, shape, strides, offset_);
}

Tensor Tensor::squeeze(int axis) const {
    const int a = normalize_axis(axis, rank());
    check(shape_[a] == 1, "squeeze of axis {} whose size is {}, not 1", axis, shape_[a]);
    Shape shape = shape_;
    Strides strides = strides_;
    shape.erase(a);
    strides.erase(a);
    return Tensor(storage_, dtype_, shape, strides, offset_);
}

Tensor Tensor::broadcast_to(const Shape& target) const {
    check(target.rank() >= rank(), "cannot broadcast shape {} to the lower rank {}", shape_.to_string(),
          target.to_string());
    Strides strides;
    for (int i = 0; i < target.rank(); ++i) {
        const int source = i - (target.rank() - rank());
        if (source < 0) {
            strides.push_back(0);
        } else if (shape_[source] == target[i]) {
            strides.push_back(strides_[source]);
        } else {
            check(shape_[source] == 1, "cannot broadcast shape {} to {}", shape_.to_string(), target.to_string());
            strides.push_back(0);
        }
    }
    return Tensor(storage_, dtype_, target, strides, offset_);
}

Tensor Tensor::reshape(const Shape& requested) const {
    Shape shape = requested;
    int inferred = -1;
    std::int64_t known = 1;
    for (int i = 0; i < shape.rank(); ++i) {
        if (shape[i] == -1) {
            check(inferred < 0, "reshape to {} has more than one -1", requested.to_string());
            inferred = i;
        } else {
            check(shape[i] >= 0, "reshape to {} has a negative size", requested.to_string());
            known *= shape[i];
        }
    }
    if (inferred >= 0) {
        check(known > 0 && numel() % known == 0, "cannot reshape {} elements to {}", numel(), requested.to_string());
        shape[inferred] = numel() / known;
    }
    check(shape.product() == numel(), "cannot reshape shape {} ({} elements) to {}", shape_.to_string(), numel(),
          requested.to_string());
    if (!is_contiguous()) return contiguous().reshape(shape);
    return Tensor(storage_, dtype_, shape, contiguous_strides(shape), offset_);
}

// --- copies -----------------------------------------------------------------------------

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : copy_to_contiguous(*this); }

Tensor Tensor::clone() const { return copy_to_contiguous(*this); }

Tensor Tensor::to(DType dtype) const { return dtype == dtype_ ? *this : convert_dtype(*this, dtype); }

}  // namespace forge
