// Tensor: a typed, strided view of a Storage.
//
// A tensor is a small value type: a shared pointer to its storage plus a layout (dtype, shape,
// strides in elements, offset in elements). Copying a Tensor copies the handle, not the data.
// Views (narrow, select, permute, transpose, reshape of contiguous data, broadcast,
// unsqueeze/squeeze) make a new layout over the same storage; contiguous() and clone() copy.
//
// Quantized dtypes (block formats) are stored as rows of whole blocks: their innermost axis
// must be contiguous and a multiple of the block size; views may only move whole rows.
#pragma once

#include "core/dtype.h"
#include "core/error.h"
#include "core/shape.h"
#include "core/storage.h"

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace forge {

namespace ag {
struct AutogradMeta;  // core/autograd/autograd_meta.h
}

class Tensor {
public:
    Tensor() = default;
    Tensor(std::shared_ptr<Storage> storage, DType dtype, const Shape& shape, const Strides& strides,
           std::int64_t offset = 0);

    // --- creation -------------------------------------------------------------------------
    static Tensor empty(const Shape& shape, DType dtype = DType::F32);  // uninitialized
    static Tensor zeros(const Shape& shape, DType dtype = DType::F32);
    static Tensor full(const Shape& shape, float value);                 // f32
    template <typename T>
    static Tensor from(std::span<const T> values, const Shape& shape);
    static Tensor from(std::initializer_list<float> values, const Shape& shape) {
        return from(std::span<const float>(values.begin(), values.size()), shape);
    }
    static Tensor arange(std::int64_t n);  // f32 0, 1, ..., n-1

    // --- layout ---------------------------------------------------------------------------
    bool defined() const { return storage_ != nullptr; }
    DType dtype() const { return dtype_; }
    const Shape& shape() const { return shape_; }
    const Strides& strides() const { return strides_; }
    int rank() const { return shape_.rank(); }
    std::int64_t size(int axis) const { return shape_[normalize_axis(axis, rank())]; }
    std::int64_t stride(int axis) const { return strides_[normalize_axis(axis, rank())]; }
    std::int64_t numel() const { return shape_.product(); }
    std::int64_t offset() const { return offset_; }
    std::size_t nbytes() const { return dtype_bytes(dtype_, static_cast<std::size_t>(numel())); }
    bool is_contiguous() const;
    const std::shared_ptr<Storage>& storage() const { return storage_; }

    // --- data access ----------------------------------------------------------------------
    // Address of the first element (for quantized dtypes: of the first block).
    std::byte* raw_data() const;
    template <typename T>
    T* data() const {
        check(dtype_ == DTypeOf<T>::value, "tensor has dtype {}, accessed as {}", dtype_name(dtype_),
              dtype_name(DTypeOf<T>::value));
        return reinterpret_cast<T*>(raw_data());
    }
    // All elements as one span; the tensor must be contiguous.
    template <typename T>
    std::span<T> span() const {
        check(is_contiguous(), "span() needs a contiguous tensor; call contiguous() first");
        return {data<T>(), static_cast<std::size_t>(numel())};
    }
    // One element converted to float, by index (rank-sized list).
    float at(std::span<const std::int64_t> index) const;
    float at(std::initializer_list<std::int64_t> index) const {
        return at(std::span<const std::int64_t>(index.begin(), index.size()));
    }
    float item() const;                    // the single element of a one-element tensor
    std::vector<float> to_vector() const;  // all elements in row-major order, as float

    // --- views (no copy) ------------------------------------------------------------------
    Tensor narrow(int axis, std::int64_t start, std::int64_t length) const;
    Tensor select(int axis, std::int64_t index) const;  // drops the axis
    Tensor permute(std::span<const int> order) const;
    Tensor permute(std::initializer_list<int> order) const {
        return permute(std::span<const int>(order.begin(), order.size()));
    }
    Tensor transpose(int axis_a, int axis_b) const;
    Tensor unsqueeze(int axis) const;
    Tensor squeeze(int axis) const;
    Tensor broadcast_to(const Shape& shape) const;  // stride 0 on repeated axes
    // A view when the data is contiguous, a copy otherwise; one size may be -1 (inferred).
    Tensor reshape(const Shape& shape) const;

    // --- copies ---------------------------------------------------------------------------
    Tensor contiguous() const;  // itself if already contiguous
    Tensor clone() const;       // always a fresh contiguous copy
    Tensor to(DType dtype) const;

    // PyTorch-like text, long axes summarized with "...".
    std::string to_string() const;

    // --- autograd slot --------------------------------------------------------------------
    // Gradient bookkeeping (core/autograd/). Shared between copies of this handle so that a
    // parameter keeps its identity (and its .grad) however it is passed around; views and
    // op results start without one. Only forge::ag reads or writes it.
    const std::shared_ptr<ag::AutogradMeta>& autograd_meta() const { return autograd_; }
    void set_autograd_meta(std::shared_ptr<ag::AutogradMeta> meta) { autograd_ = std::move(meta); }

private:
    std::shared_ptr<Storage> storage_;
    DType dtype_ = DType::F32;
    Shape shape_;
    Strides strides_;
    std::int64_t offset_ = 0;
    std::shared_ptr<ag::AutogradMeta> autograd_;
};

std::ostream& operator<<(std::ostream& out, const Tensor& tensor);

}  // namespace forge
