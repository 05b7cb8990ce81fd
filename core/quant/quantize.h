// Quantizing and dequantizing tensors: the front-end over kernels/quantize.h and
// kernels/dequantize.h. Validates once, then splits the rows over the thread pool; the
// kernels see only blocks and floats.
#pragma once

#include "core/dtype.h"
#include "core/tensor.h"

#include <cstddef>
#include <span>

namespace forge::quant {

// What forge can do with a dtype.
bool can_decode(DType dtype);     // dequantize() to f32 (block formats, f16, bf16, f32)
bool can_encode(DType dtype);     // quantize() from f32, byte-exact with ggml's reference
bool has_dot_kernel(DType dtype); // quant_matmul() weights

// A new contiguous f32 tensor with the values of `t` (any decodable dtype; any layout for
// plain types, row-contiguous for block formats).
Tensor dequantize(const Tensor& t);

// A new tensor of `dtype` encoding the f32 tensor `t`, whose last axis must be a multiple of
// the format's block size. f16/bf16/f32 targets are plain conversions.
Tensor quantize(const Tensor& t, DType dtype);

// The same on raw bytes: `src` holds whole blocks, `dst` the matching floats.
void dequantize_bytes(DType dtype, std::span<const std::byte> src, std::span<float> dst);
void quantize_bytes(DType dtype, std::span<const float> src, std::span<std::byte> dst);

}  // namespace forge::quant
