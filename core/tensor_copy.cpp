#include "core/tensor_copy.h"

#include "core/thread_pool.h"
#include "kernels/backend.h"
#include "kernels/convert.h"
#include "kernels/copy.h"

#include <array>
#include <cstring>
#include <vector>

namespace forge {
namespace {

// Elements per parallel chunk for element-wise work: large enough that a chunk outweighs
// the cost of handing it to a thread, small enough to balance two to dozens of threads.
constexpr std::int64_t kElementGrain = 1 << 16;

}  // namespace

Tensor copy_to_contiguous(const Tensor& x) {
    Tensor out = Tensor::empty(x.shape(), x.dtype());
    if (x.numel() == 0) return out;
    if (is_quantized(x.dtype())) {
        // Rows of whole blocks: copy each row's bytes (the innermost axis is contiguous).
        const std::int64_t row_length = x.size(-1);
        const std::size_t row_bytes = dtype_bytes(x.dtype(), static_cast<std::size_t>(row_length));
        const Tensor rows = x.rank() == 1 ? x.unsqueeze(0) : x;
        Shape outer(std::span(rows.shape().begin(), static_cast<std::size_t>(rows.rank() - 1)));
        Strides outer_strides(std::span(rows.strides().begin(), static_cast<std::size_t>(rows.rank() - 1)));
        // Treat each row as one opaque element of row_bytes bytes; strides become whole rows.
        for (int axis = 0; axis < outer_strides.rank(); ++axis) outer_strides[axis] /= row_length;
        kernels::active::copy_strided({rows.raw_data(), outer.span(), outer_strides.span(), row_bytes,
                                       out.raw_data()});
        return out;
    }
    const auto element_bytes = static_cast<std::size_t>(dtype_traits(x.dtype()).block_bytes);
    if (x.rank() == 0) {
        std::memcpy(out.raw_data(), x.raw_data(), element_bytes);
        return out;
    }
    // Split the outermost axis across threads; each part is an independent strided copy.
    const std::int64_t outer = x.size(0);
    const std::int64_t inner_elements = x.numel() / outer;
    std::int64_t grain = std::max<std::int64_t>(1, kElementGrain / std::max<std::int64_t>(inner_elements, 1));
    if (x.rank() == 2 && x.stride(1) != 1) {
        // A transpose: give each task bands of 64 rows, so the kernel can work in square
        // 64 x 64 blocks rather than thin strips that touch a new page per element.
        grain = std::max<std::int64_t>(grain, 64);
    }
    ThreadPool::global().parallel_for(outer, grain, [&](std::int64_t begin, std::int64_t end) {
        const Tensor part = x.narrow(0, begin, end - begin);
        kernels::active::copy_strided({part.raw_data(), part.shape().span(), part.strides().span(), element_bytes,
                                       out.raw_data() + static_cast<std::size_t>(begin * inner_elements) * element_bytes});
    });
    return out;
}

namespace {

template <typename From, typename To>
void cast_elements(const From* src, To* dst, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i) dst[i] = static_cast<To>(src[i]);
}

// Calls f(T{}) with the C++ type that stores a plain dtype's elements (uint16_t for the
// 16-bit float formats, whose bits need a conversion kernel rather than a cast).
template <typename F>
void visit_storage_type(DType dtype, F&& f) {
    switch (dtype) {
        case DType::F32: f(float{}); return;
        case DType::F16: case DType::BF16: f(std::uint16_t{}); return;
        case DType::F64: f(double{}); return;
        case DType::I8: f(std::int8_t{}); return;
        case DType::I16: f(std::int16_t{}); return;
        case DType::I32: f(std::int32_t{}); return;
        case DType::I64: f(std::int64_t{}); return;
        case DType::U8: f(std::uint8_t{}); return;
        // Block formats have no element type: their rows are copied whole.
        case DType::Q4_0: case DType::Q4_1: case DType::Q5_0: case DType::Q5_1: case DType::Q8_0: case DType::Q8_1:
        case DType::Q2_K: case DType::Q3_K: case DType::Q4_K: case DType::Q5_K: case DType::Q6_K: case DType::Q8_K:
        case DType::IQ2_XXS: case DType::IQ2_XS: case DType::IQ3_XXS: case DType::IQ1_S: case DType::IQ4_NL:
        case DType::IQ3_S: case DType::IQ2_S: case DType::IQ4_XS: case DType::IQ1_M: case DType::TQ1_0:
        case DType::TQ2_0: case DType::MXFP4:
            fail("dtype {} has no element type", dtype_name(dtype));
    }
}

// f32 represents every value of these types exactly, so a conversion between two of them can
// go through an f32 buffer without changing any value.
bool exact_in_f32(DType dtype) {
    return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::I8 ||
           dtype == DType::I16 || dtype == DType::U8;
}

void load_f32(const Tensor& src, std::int64_t begin, std::span<float> dst) {
    const std::size_t n = dst.size();
    if (src.dtype() == DType::F16 || src.dtype() == DType::BF16) {
        const auto* bits = reinterpret_cast<const std::uint16_t*>(src.raw_data()) + begin;
        if (src.dtype() == DType::F16) kernels::active::f16_to_f32({bits, n}, dst);
        else kernels::active::bf16_to_f32({bits, n}, dst);
        return;
    }
    visit_storage_type(src.dtype(), [&]<typename T>(T) {
        cast_elements(reinterpret_cast<const T*>(src.raw_data()) + begin, dst.data(), static_cast<std::int64_t>(n));
    });
}

void store_f32(std::span<const float> src, const Tensor& dst, std::int64_t begin) {
    const std::size_t n = src.size();
    if (dst.dtype() == DType::F16 || dst.dtype() == DType::BF16) {
        auto* bits = reinterpret_cast<std::uint16_t*>(dst.raw_data()) + begin;
        if (dst.dtype() == DType::F16) kernels::active::f32_to_f16(src, {bits, n});
        else kernels::active::f32_to_bf16(src, {bits, n});
        return;
    }
    visit_storage_type(dst.dtype(), [&]<typename T>(T) {
        cast_elements(src.data(), reinterpret_cast<T*>(dst.raw_data()) + begin, static_cast<std::int64_t>(n));
    });
}

}  // namespace

Tensor convert_dtype(const Tensor& x, DType dtype) {
    check(!is_quantized(x.dtype()) && !is_quantized(dtype),
          "convert {} -> {}: block-quantized types are converted by quantize/dequantize", dtype_name(x.dtype()),
          dtype_name(dtype));
    const Tensor src = x.contiguous();
    Tensor out = Tensor::empty(x.shape(), dtype);
    if (exact_in_f32(src.dtype()) || (exact_in_f32(dtype) && src.dtype() == DType::F32)) {
        // Chunk by chunk through an f32 buffer on the stack, in parallel.
        constexpr std::int64_t kChunk = 4096;
        ThreadPool::global().parallel_for(x.numel(), kChunk, [&](std::int64_t begin, std::int64_t end) {
            std::array<float, kChunk> buffer;
            const std::span<float> chunk(buffer.data(), static_cast<std::size_t>(end - begin));
            load_f32(src, begin, chunk);
            store_f32(chunk, out, begin);
        });
        return out;
    }
    // f64, i32 and i64 hold values f32 cannot: go element by element through double
    // (16-bit floats through f32 first, which is exact).
    const std::int64_t n = x.numel();
    std::vector<double> wide(static_cast<std::size_t>(n));
    if (src.dtype() == DType::F16 || src.dtype() == DType::BF16) {
        std::vector<float> narrow_values(static_cast<std::size_t>(n));
        load_f32(src, 0, narrow_values);
        cast_elements(narrow_values.data(), wide.data(), n);
    } else {
        visit_storage_type(src.dtype(), [&]<typename T>(T) {
            cast_elements(reinterpret_cast<const T*>(src.raw_data()), wide.data(), n);
        });
    }
    if (dtype == DType::F16 || dtype == DType::BF16) {
        std::vector<float> narrow_values(static_cast<std::size_t>(n));
        cast_elements(wide.data(), narrow_values.data(), n);
        store_f32(narrow_values, out, 0);
    } else {
        visit_storage_type(dtype, [&]<typename T>(T) { cast_elements(wide.data(), reinterpret_cast<T*>(out.raw_data()), n); });
    }
    return out;
}

}  // namespace forge
