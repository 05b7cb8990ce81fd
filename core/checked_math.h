// Integer arithmetic that reports overflow instead of wrapping or invoking undefined
// behaviour. Sizes read from files (a kernel size times a dilation, channels times frames)
// and integers computed by a chat template go through these: a hostile file must get an
// error, never a wrapped size that under-allocates or a SIGFPE.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace forge {

// A count or an index already known to be in range and non-negative (a shape's extent, a row
// times a width) as the std::size_t that containers and spans take: the one spelling of that
// cast, short enough to leave the arithmetic readable.
inline std::size_t sz(std::int64_t n) { return static_cast<std::size_t>(n); }

inline std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
    std::int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
    return r;
}

inline std::optional<std::int64_t> checked_sub(std::int64_t a, std::int64_t b) {
    std::int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
    return r;
}

inline std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
    std::int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
}

// Python's floor division and modulo (the result of % has the sign of the divisor). The
// only overflow is INT64_MIN // -1; INT64_MIN % -1 is 0 (in C++ both are undefined).
// b must not be 0.
inline std::optional<std::int64_t> floor_div(std::int64_t a, std::int64_t b) {
    if (b == -1) return checked_sub(0, a);
    const std::int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

inline std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
    if (b == -1) return 0;
    const std::int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// a ** b for b >= 0 by repeated squaring; nullopt on overflow.
inline std::optional<std::int64_t> checked_pow(std::int64_t base, std::int64_t exponent) {
    std::int64_t result = 1;
    while (exponent > 0) {
        if (exponent & 1) {
            const auto r = checked_mul(result, base);
            if (!r) return std::nullopt;
            result = *r;
        }
        exponent >>= 1;
        if (exponent > 0) {
            const auto b = checked_mul(base, base);
            if (!b) return std::nullopt;
            base = *b;
        }
    }
    return result;
}

// A double that converts to int64 without undefined behaviour (finite and in range).
inline std::optional<std::int64_t> to_int64(double x) {
    // 2^63 is exactly representable; every double below it in magnitude fits.
    if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) return std::nullopt;
    return static_cast<std::int64_t>(x);
}

}  // namespace forge
