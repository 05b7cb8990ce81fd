// Row gather (embedding lookup): out[i, :] = table[ids[i], :] as f32, from an f32 or f16
// table of `rows` x `dim` elements stored row-major. The front-end has checked every id is
// in [0, rows); the kernels trust it.
#pragma once

#include <cstdint>
#include <span>

namespace forge::kernels {

template <typename Element, typename Index>
struct GatherRows {
    std::span<const Element> table;  // rows * dim elements
    std::int64_t dim;
    std::span<const Index> ids;
    std::span<float> out;  // ids.size() * dim elements
};

namespace scalar {
void gather_rows(const GatherRows<float, std::int32_t>& gather) noexcept;
void gather_rows(const GatherRows<float, std::int64_t>& gather) noexcept;
void gather_rows(const GatherRows<std::uint16_t, std::int32_t>& gather) noexcept;  // f16 table
void gather_rows(const GatherRows<std::uint16_t, std::int64_t>& gather) noexcept;  // f16 table
}  // namespace scalar

namespace simd {
void gather_rows(const GatherRows<float, std::int32_t>& gather) noexcept;
void gather_rows(const GatherRows<float, std::int64_t>& gather) noexcept;
void gather_rows(const GatherRows<std::uint16_t, std::int32_t>& gather) noexcept;
void gather_rows(const GatherRows<std::uint16_t, std::int64_t>& gather) noexcept;
}  // namespace simd

}  // namespace forge::kernels
