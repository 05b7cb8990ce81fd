#include "core/shape.h"

#include "core/error.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace forge {

Dims::Dims(std::initializer_list<std::int64_t> values) : Dims(std::span(values.begin(), values.size())) {}

Dims::Dims(std::span<const std::int64_t> values) {
    check(values.size() <= kMaxRank, "rank {} exceeds the maximum of {}", values.size(), kMaxRank);
    std::copy(values.begin(), values.end(), values_.begin());
    rank_ = static_cast<int>(values.size());
}

void Dims::push_back(std::int64_t value) { insert(rank_, value); }

void Dims::insert(int axis, std::int64_t value) {
    check(rank_ < kMaxRank, "rank would exceed the maximum of {}", kMaxRank);
    check(axis >= 0 && axis <= rank_, "insert position {} out of range for rank {}", axis, rank_);
    std::copy_backward(values_.begin() + axis, values_.begin() + rank_, values_.begin() + rank_ + 1);
    values_[static_cast<std::size_t>(axis)] = value;
    ++rank_;
}

void Dims::erase(int axis) {
    check(axis >= 0 && axis < rank_, "axis {} out of range for rank {}", axis, rank_);
    std::copy(values_.begin() + axis + 1, values_.begin() + rank_, values_.begin() + axis);
    --rank_;
}

std::int64_t Dims::product() const {
    std::int64_t result = 1;
    for (auto v : *this) result *= v;
    return result;
}

std::string Dims::to_string() const { return fmt::format("[{}]", fmt::join(span(), ", ")); }

Strides contiguous_strides(const Shape& shape) {
    Strides strides = shape;
    std::int64_t stride = 1;
    for (int axis = shape.rank() - 1; axis >= 0; --axis) {
        strides[axis] = stride;
        stride *= shape[axis];
    }
    return strides;
}

int normalize_axis(int axis, int rank) {
    const int resolved = axis < 0 ? axis + rank : axis;
    check(resolved >= 0 && resolved < rank, "axis {} out of range for a tensor of rank {}", axis, rank);
    return resolved;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
    const int rank = std::max(a.rank(), b.rank());
    Shape out;
    for (int i = 0; i < rank; ++i) {
        // Align from the right; a missing axis acts as size 1.
        const int ia = i - (rank - a.rank());
        const int ib = i - (rank - b.rank());
        const std::int64_t da = ia >= 0 ? a[ia] : 1;
        const std::int64_t db = ib >= 0 ? b[ib] : 1;
        check(da == db || da == 1 || db == 1, "shapes {} and {} cannot be broadcast together",
              a.to_string(), b.to_string());
        out.push_back(da == 1 ? db : da);
    }
    return out;
}

}  // namespace forge
