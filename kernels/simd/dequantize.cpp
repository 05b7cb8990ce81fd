// Block decoders, simd backend. Decoding is a load, a table lookup or shift, and one or two
// multiplies per element: with -march=native GCC vectorizes the scalar loops well, and doing
// the same products in the same order keeps the bits identical. So the simd backend uses
// the scalar decoders; this file is where hand-written ones would go if profiling asked.
#include "kernels/dequantize.h"

namespace forge::kernels::simd {

void dequantize(std::span<const BlockQ4_0> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockQ4_1> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockQ5_0> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockQ5_1> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockQ8_0> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockQ2_K> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockQ3_K> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockQ4_K> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockQ5_K> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockQ6_K> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockQ8_K> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockIQ4_NL> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockMXFP4> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockIQ4_XS> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockTQ1_0> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }
void dequantize(std::span<const BlockTQ2_0> b, std::span<float> out) noexcept { scalar::dequantize(b, out); }

}  // namespace forge::kernels::simd
