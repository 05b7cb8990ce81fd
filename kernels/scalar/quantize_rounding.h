// The integer conversions ggml's quantizers use, reproduced bit for bit (private to the
// encoders in kernels/scalar/quantize*.cpp).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace forge::kernels::scalar::rounding {

// ggml's nearest_int: round to nearest (ties to even) by adding 1.5 * 2^23 and reading the
// low mantissa bits. Exact for |x| < 2^22; beyond that it returns the same wrapped value
// ggml does, which matters for byte-exactness on inputs whose scales overflow.
inline int nearest_int(float x) {
    const float shifted = x + 12582912.f;
    const auto bits = std::bit_cast<std::int32_t>(shifted);
    return (bits & 0x007fffff) - 0x00400000;
}

// C's (int)x on x86-64 (cvttss2si): truncation, and INT_MIN for NaN or out-of-range values
// — which ggml's (int8_t)(x + 8.5f) then wraps to a byte. Spelled out because the C++
// conversion is undefined out of range.
inline std::int32_t truncate_x86(float x) {
    if (!(x > -2147483904.f && x < 2147483648.f)) return std::numeric_limits<std::int32_t>::min();
    return static_cast<std::int32_t>(x);
}

// (int8_t)x and (uint8_t)x for a float x, as ggml's compiled code computes them: truncate to
// 32 bits, keep the low byte.
inline std::int8_t to_int8(float x) { return static_cast<std::int8_t>(truncate_x86(x)); }
inline std::uint8_t to_uint8(float x) { return static_cast<std::uint8_t>(truncate_x86(x)); }

// lroundf with glibc's x86-64 behaviour (LONG_MIN for NaN and overflow).
inline long round_long(float x) {
    if (!(std::fabs(x) < 9.2233720e18f)) return std::numeric_limits<long>::min();
    return std::lround(x);
}

}  // namespace forge::kernels::scalar::rounding
