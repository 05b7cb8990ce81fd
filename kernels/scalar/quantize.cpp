// Encoders for the 32-element formats, Q8_K and the ternary formats, written after ggml's
// quantize_row_*_ref (ggml/src/ggml-quants.c, MIT). Each keeps ggml's arithmetic exactly:
// the reciprocal 1/d is taken in f32 before d is rounded to f16, and the same truncating
// conversions turn scaled values into quants.
#include "kernels/quantize.h"
#include "kernels/scalar/quantize_rounding.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace forge::kernels::scalar {

using rounding::nearest_int;
using rounding::to_int8;
using rounding::to_uint8;

namespace {

// The value of largest magnitude in a block (the first one on ties), sign included.
float signed_absmax(const float* x, int n) {
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < n; ++j) {
        if (amax < std::fabs(x[j])) {
            amax = std::fabs(x[j]);
            max = x[j];
        }
    }
    return max;
}

struct MinMax {
    float min, max;
};
MinMax min_max(const float* x, int n) {
    MinMax r{std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()};
    for (int j = 0; j < n; ++j) {
        if (x[j] < r.min) r.min = x[j];
        if (x[j] > r.max) r.max = x[j];
    }
    return r;
}

void store_q5_high_bits(std::array<std::uint8_t, 4>& qh, std::uint32_t bits) { std::memcpy(qh.data(), &bits, 4); }

}  // namespace

// Symmetric 4-bit: the extreme value maps to -8 exactly, so its sign picks the direction.
void quantize(std::span<const float> x, std::span<BlockQ4_0> out) noexcept {
    const float* v = x.data();
    for (auto& b : out) {
        const float d = signed_absmax(v, 32) / -8;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        b.d = f32_to_f16(d);
        for (int j = 0; j < 16; ++j) {
            const auto q0 = static_cast<std::uint8_t>(std::min<int>(15, to_int8(v[j] * id + 8.5f)));
            const auto q1 = static_cast<std::uint8_t>(std::min<int>(15, to_int8(v[j + 16] * id + 8.5f)));
            b.qs[static_cast<std::size_t>(j)] = static_cast<std::uint8_t>(q0 | (q1 << 4));
        }
        v += 32;
    }
}

void quantize(std::span<const float> x, std::span<BlockQ4_1> out) noexcept {
    const float* v = x.data();
    for (auto& b : out) {
        const auto [min, max] = min_max(v, 32);
        const float d = (max - min) / 15;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        b.d = f32_to_f16(d);
        b.m = f32_to_f16(min);
        for (int j = 0; j < 16; ++j) {
            const auto q0 = static_cast<std::uint8_t>(std::min<int>(15, to_int8((v[j] - min) * id + 0.5f)));
            const auto q1 = static_cast<std::uint8_t>(std::min<int>(15, to_int8((v[j + 16] - min) * id + 0.5f)));
            b.qs[static_cast<std::size_t>(j)] = static_cast<std::uint8_t>(q0 | (q1 << 4));
        }
        v += 32;
    }
}

void quantize(std::span<const float> x, std::span<BlockQ5_0> out) noexcept {
    const float* v = x.data();
    for (auto& b : out) {
        const float d = signed_absmax(v, 32) / -16;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        b.d = f32_to_f16(d);
        std::uint32_t qh = 0;
        for (int j = 0; j < 16; ++j) {
            const auto q0 = static_cast<std::uint8_t>(std::min<int>(31, to_int8(v[j] * id + 16.5f)));
            const auto q1 = static_cast<std::uint8_t>(std::min<int>(31, to_int8(v[j + 16] * id + 16.5f)));
            b.qs[static_cast<std::size_t>(j)] = static_cast<std::uint8_t>((q0 & 0xF) | ((q1 & 0xF) << 4));
            qh |= static_cast<std::uint32_t>((q0 >> 4) & 1) << j;
            qh |= static_cast<std::uint32_t>((q1 >> 4) & 1) << (j + 16);
        }
        store_q5_high_bits(b.qh, qh);
        v += 32;
    }
}

void quantize(std::span<const float> x, std::span<BlockQ5_1> out) noexcept {
    const float* v = x.data();
    for (auto& b : out) {
        const auto [min, max] = min_max(v, 32);
        const float d = (max - min) / 31;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        b.d = f32_to_f16(d);
        b.m = f32_to_f16(min);
        std::uint32_t qh = 0;
        for (int j = 0; j < 16; ++j) {
            // No clamp here (ggml has none): (max - min) * id rounds to at most 31.
            const std::uint8_t q0 = to_uint8((v[j] - min) * id + 0.5f);
            const std::uint8_t q1 = to_uint8((v[j + 16] - min) * id + 0.5f);
            b.qs[static_cast<std::size_t>(j)] = static_cast<std::uint8_t>((q0 & 0xF) | ((q1 & 0xF) << 4));
            qh |= static_cast<std::uint32_t>((q0 >> 4) & 1) << j;
            qh |= static_cast<std::uint32_t>((q1 >> 4) & 1) << (j + 16);
        }
        store_q5_high_bits(b.qh, qh);
        v += 32;
    }
}

void quantize(std::span<const float> x, std::span<BlockQ8_0> out) noexcept {
    const float* v = x.data();
    for (auto& b : out) {
        float amax = 0.0f;
        for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(v[j]));
        const float d = amax / 127;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        b.d = f32_to_f16(d);
        // roundf: ties away from zero (unlike nearest_int's ties to even).
        for (int j = 0; j < 32; ++j) b.qs[static_cast<std::size_t>(j)] = to_int8(std::round(v[j] * id));
        v += 32;
    }
}

// Q8_K keeps its scale in f32 and maps the signed extreme to -127 (ggml chose -127 over
// -128 so that the IQ2 dot products stay simple).
void quantize(std::span<const float> x, std::span<BlockQ8_K> out) noexcept {
    const float* v = x.data();
    for (auto& b : out) {
        const float max = signed_absmax(v, 256);
        if (max == 0.0f) {
            b.d = 0;
            b.qs.fill(0);
            b.bsums.fill(0);
            v += 256;
            continue;
        }
        const float iscale = -127.f / max;
        for (int j = 0; j < 256; ++j) {
            b.qs[static_cast<std::size_t>(j)] = static_cast<std::int8_t>(std::min(127, nearest_int(iscale * v[j])));
        }
        for (int g = 0; g < 16; ++g) {
            int sum = 0;
            for (int j = 0; j < 16; ++j) sum += b.qs[static_cast<std::size_t>(16 * g + j)];
            b.bsums[static_cast<std::size_t>(g)] = static_cast<std::int16_t>(sum);
        }
        b.d = 1 / iscale;
        v += 256;
    }
}

namespace {

float absmax(const float* x, int n) {
    float amax = 0.0f;
    for (int j = 0; j < n; ++j) amax = std::max(amax, std::fabs(x[j]));
    return amax;
}

// A ternary digit in {0, 1, 2} for x / amax in [-1, 1].
int trit(float x, float id) { return static_cast<int>(rounding::round_long(x * id)) + 1; }

// Five (or four, then shifted up one) trits as a base-3 number, stored as ceil(n * 256 / 243)
// so that decoding can pull trits out with multiplications instead of divisions.
std::uint8_t pack_trits(const float* x, int stride, int count, float id) {
    std::uint8_t q = 0;
    for (int n = 0; n < count; ++n) q = static_cast<std::uint8_t>(q * 3 + trit(x[n * stride], id));
    if (count == 4) q = static_cast<std::uint8_t>(q * 3);
    return static_cast<std::uint8_t>((static_cast<std::uint16_t>(q) * 256 + 242) / 243);
}

}  // namespace

void quantize(std::span<const float> x, std::span<BlockTQ1_0> out) noexcept {
    const float* v = x.data();
    for (auto& b : out) {
        const float d = absmax(v, 256);
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        b.d = f32_to_f16(d);
        for (int m = 0; m < 32; ++m) b.qs[static_cast<std::size_t>(m)] = pack_trits(v + m, 32, 5, id);
        v += 160;
        for (int m = 0; m < 16; ++m) b.qs[static_cast<std::size_t>(32 + m)] = pack_trits(v + m, 16, 5, id);
        v += 80;
        for (int m = 0; m < 4; ++m) b.qh[static_cast<std::size_t>(m)] = pack_trits(v + m, 4, 4, id);
        v += 16;
    }
}

void quantize(std::span<const float> x, std::span<BlockTQ2_0> out) noexcept {
    const float* v = x.data();
    for (auto& b : out) {
        const float d = absmax(v, 256);
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        b.d = f32_to_f16(d);
        for (int j = 0; j < 64; j += 32) {
            for (int m = 0; m < 32; ++m) {
                int q = 0;
                for (int n = 0; n < 4; ++n) q += (trit(v[m + n * 32], id) & 3) << (2 * n);
                b.qs[static_cast<std::size_t>(j + m)] = static_cast<std::uint8_t>(q);
            }
            v += 128;
        }
    }
}

}  // namespace forge::kernels::scalar
