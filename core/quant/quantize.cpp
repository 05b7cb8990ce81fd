#include "core/quant/quantize.h"

#include "core/quant/block_types.h"
#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/convert.h"
#include "kernels/dequantize.h"
#include "kernels/quantize.h"

#include <cstring>

namespace forge::quant {

namespace {

// Rows per task: enough work (~64 Ki elements) per chunk to amortize the hand-off.
std::int64_t grain_for(std::int64_t row_elements) {
    return std::max<std::int64_t>(1, (std::int64_t{1} << 16) / std::max<std::int64_t>(1, row_elements));
}

template <typename Block>
std::span<const Block> as_blocks(std::span<const std::byte> bytes) {
    return {reinterpret_cast<const Block*>(bytes.data()), bytes.size() / sizeof(Block)};
}

template <typename Block>
std::span<Block> as_blocks(std::span<std::byte> bytes) {
    return {reinterpret_cast<Block*>(bytes.data()), bytes.size() / sizeof(Block)};
}

bool is_plain_float(DType dtype) { return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16; }

void decode_plain(DType dtype, std::span<const std::byte> src, std::span<float> dst) {
    const std::span<const std::uint16_t> halves(reinterpret_cast<const std::uint16_t*>(src.data()), dst.size());
    if (dtype == DType::F16) kernels::active::f16_to_f32(halves, dst);
    else if (dtype == DType::BF16) kernels::active::bf16_to_f32(halves, dst);
    else std::memcpy(dst.data(), src.data(), dst.size_bytes());
}

void encode_plain(DType dtype, std::span<const float> src, std::span<std::byte> dst) {
    const std::span<std::uint16_t> halves(reinterpret_cast<std::uint16_t*>(dst.data()), src.size());
    if (dtype == DType::F16) kernels::active::f32_to_f16(src, halves);
    else if (dtype == DType::BF16) kernels::active::f32_to_bf16(src, halves);
    else std::memcpy(dst.data(), src.data(), src.size_bytes());
}

}  // namespace

bool can_decode(DType dtype) {
    if (is_plain_float(dtype)) return true;
    try {
        return visit_block_type(dtype, [](auto) { return true; });
    } catch (const Error&) {
        return false;
    }
}

bool can_encode(DType dtype) {
    if (is_plain_float(dtype)) return true;
    if (!can_decode(dtype)) return false;
    return visit_block_type(dtype, [](auto tag) { return kHasEncoder<typename decltype(tag)::type>; });
}

bool has_dot_kernel(DType dtype) { return !is_plain_float(dtype) && can_decode(dtype); }

void dequantize_bytes(DType dtype, std::span<const std::byte> src, std::span<float> dst) {
    check(src.size() == dtype_bytes(dtype, dst.size()), "dequantize: {} bytes of {} do not hold {} values", src.size(),
          dtype_name(dtype), dst.size());
    if (is_plain_float(dtype)) return decode_plain(dtype, src, dst);
    visit_block_type(dtype, [&](auto tag) {
        using Block = typename decltype(tag)::type;
        kernels::active::dequantize(as_blocks<Block>(src), dst);
    });
}

void quantize_bytes(DType dtype, std::span<const float> src, std::span<std::byte> dst) {
    check(can_encode(dtype), "cannot quantize to {}: forge has no byte-exact encoder for it", dtype_name(dtype));
    check(dst.size() == dtype_bytes(dtype, src.size()) && src.size() % dtype_traits(dtype).block_size == 0,
          "quantize: {} values do not fill {} bytes of {}", src.size(), dst.size(), dtype_name(dtype));
    if (is_plain_float(dtype)) return encode_plain(dtype, src, dst);
    visit_block_type(dtype, [&](auto tag) {
        using Block = typename decltype(tag)::type;
        if constexpr (kHasEncoder<Block>) kernels::scalar::quantize(src, as_blocks<Block>(dst));
    });
}

Tensor dequantize(const Tensor& t) {
    check(t.defined(), "dequantize: undefined tensor");
    check(can_decode(t.dtype()), "dequantize: forge cannot decode {}", dtype_name(t.dtype()));
    const Tensor source = t.contiguous();
    Tensor out = Tensor::empty(source.shape(), DType::F32);
    const std::int64_t row = source.rank() == 0 ? 1 : source.size(-1);
    const std::int64_t rows = row == 0 ? 0 : source.numel() / row;
    const std::size_t row_bytes = dtype_bytes(source.dtype(), static_cast<std::size_t>(row));
    const std::byte* src = source.raw_data();
    float* dst = out.data<float>();
    ThreadPool::global().parallel_for(rows, grain_for(row), [&](std::int64_t begin, std::int64_t end) {
        const auto n = static_cast<std::size_t>(end - begin);
        dequantize_bytes(source.dtype(), {src + static_cast<std::size_t>(begin) * row_bytes, n * row_bytes},
                         {dst + begin * row, n * static_cast<std::size_t>(row)});
    });
    return out;
}

Tensor quantize(const Tensor& t, DType dtype) {
    check(t.defined() && t.dtype() == DType::F32, "quantize: needs an f32 tensor");
    check(t.rank() >= 1, "quantize: needs at least one axis");
    check(can_encode(dtype), "quantize: forge has no byte-exact encoder for {}", dtype_name(dtype));
    const std::int64_t row = t.size(-1);
    const int block = dtype_traits(dtype).block_size;
    check(row % block == 0, "quantize: rows of {} values are not a multiple of the {} block size {}", row,
          dtype_name(dtype), block);
    const Tensor source = t.contiguous();
    Tensor out = Tensor::empty(source.shape(), dtype);
    const std::int64_t rows = row == 0 ? 0 : source.numel() / row;
    const std::size_t row_bytes = dtype_bytes(dtype, static_cast<std::size_t>(row));
    const float* src = source.data<float>();
    std::byte* dst = out.raw_data();
    ThreadPool::global().parallel_for(rows, grain_for(row), [&](std::int64_t begin, std::int64_t end) {
        const auto n = static_cast<std::size_t>(end - begin);
        quantize_bytes(dtype, {src + begin * row, n * static_cast<std::size_t>(row)},
                       {dst + static_cast<std::size_t>(begin) * row_bytes, n * row_bytes});
    });
    return out;
}

}  // namespace forge::quant
