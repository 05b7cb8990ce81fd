// Shape and strides of a tensor: up to kMaxRank axes, stored inline (no heap).
// Axis 0 is the outermost; the last axis is the innermost (row-major, like NumPy/PyTorch).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

namespace forge {

inline constexpr int kMaxRank = 8;

// A short list of int64 values (sizes or strides).
class Dims {
public:
    Dims() = default;
    Dims(std::initializer_list<std::int64_t> values);
    explicit Dims(std::span<const std::int64_t> values);

    int rank() const { return rank_; }
    std::int64_t operator[](int axis) const { return values_[static_cast<std::size_t>(axis)]; }
    std::int64_t& operator[](int axis) { return values_[static_cast<std::size_t>(axis)]; }
    std::span<const std::int64_t> span() const { return {values_.data(), static_cast<std::size_t>(rank_)}; }
    const std::int64_t* begin() const { return values_.data(); }
    const std::int64_t* end() const { return values_.data() + rank_; }

    void push_back(std::int64_t value);
    void insert(int axis, std::int64_t value);
    void erase(int axis);

    // Product of all values (1 for rank 0): the element count of a shape.
    std::int64_t product() const;
    std::string to_string() const;  // "[2, 3, 4]"

    friend bool operator==(const Dims& a, const Dims& b) {
        return a.rank_ == b.rank_ && std::equal(a.begin(), a.end(), b.begin());
    }

private:
    std::array<std::int64_t, kMaxRank> values_{};
    int rank_ = 0;
};

using Shape = Dims;
using Strides = Dims;

// Row-major strides (in elements) of a contiguous tensor of this shape.
Strides contiguous_strides(const Shape& shape);

// Resolve a possibly negative axis (-1 = last) against a rank; throws on out-of-range.
int normalize_axis(int axis, int rank);

// The shape two shapes broadcast to (NumPy rules); throws if they are incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b);

}  // namespace forge
