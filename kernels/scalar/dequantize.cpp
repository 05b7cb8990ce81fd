// Block decoders, written after ggml's dequantize_row_* (ggml/src/ggml-quants.c, MIT).
// Products are spelled in ggml's order — e.g. (d * scale) * q, not d * (scale * q) — because
// float multiplication is not associative and the goal is identical bits.
#include "kernels/dequantize.h"

#include <cstring>

namespace forge::kernels::scalar {

namespace {

float half(f16_bits h) { return f16_to_f32(h); }

// Bit 4 of element j of a Q5 block (elements 16..31 use qh bits 16..31).
int q5_high_bit(const std::array<std::uint8_t, 4>& qh_bytes, int j) {
    std::uint32_t qh;
    std::memcpy(&qh, qh_bytes.data(), 4);
    return static_cast<int>((qh >> j) & 1u) << 4;
}

}  // namespace

void dequantize(std::span<const BlockQ4_0> blocks, std::span<float> out) noexcept {
    float* y = out.data();
    for (const auto& b : blocks) {
        const float d = half(b.d);
        for (int j = 0; j < 16; ++j) {
            y[j] = static_cast<float>((b.qs[j] & 0xF) - 8) * d;
            y[j + 16] = static_cast<float>((b.qs[j] >> 4) - 8) * d;
        }
        y += 32;
    }
}

void dequantize(std::span<const BlockQ4_1> blocks, std::span<float> out) noexcept {
    float* y = out.data();
    for (const auto& b : blocks) {
        const float d = half(b.d);
        const float m = half(b.m);
        for (int j = 0; j < 16; ++j) {
            y[j] = static_cast<float>(b.qs[j] & 0xF) * d + m;
            y[j + 16] = static_cast<float>(b.qs[j] >> 4) * d + m;
        }
        y += 32;
    }
}

void dequantize(std::span<const BlockQ5_0> blocks, std::span<float> out) noexcept {
    float* y = out.data();
    for (const auto& b : blocks) {
        const float d = half(b.d);
        for (int j = 0; j < 16; ++j) {
            y[j] = static_cast<float>(((b.qs[j] & 0xF) | q5_high_bit(b.qh, j)) - 16) * d;
            y[j + 16] = static_cast<float>(((b.qs[j] >> 4) | q5_high_bit(b.qh, j + 16)) - 16) * d;
        }
        y += 32;
    }
}

void dequantize(std::span<const BlockQ5_1> blocks, std::span<float> out) noexcept {
    float* y = out.data();
    for (const auto& b : blocks) {
        const float d = half(b.d);
        const float m = half(b.m);
        for (int j = 0; j < 16; ++j) {
            y[j] = static_cast<float>((b.qs[j] & 0xF) | q5_high_bit(b.qh, j)) * d + m;
            y[j + 16] = static_cast<float>((b.qs[j] >> 4) | q5_high_bit(b.qh, j + 16)) * d + m;
        }
        y += 32;
    }
}

void dequantize(std::span<const BlockQ8_0> blocks, std::span<float> out) noexcept {
    float* y = out.data();
    for (const auto& b : blocks) {
        const float d = half(b.d);
        for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(b.qs[j]) * d;
        y += 32;
    }
}

// Q2_K and Q3_K store a super-block as two halves of 128; in each half, byte l of the 32 qs
// bytes holds elements l, l+32, l+64, l+96 in its bit pairs 0-1, 2-3, 4-5, 6-7.
void dequantize(std::span<const BlockQ2_K> blocks, std::span<float> out) noexcept {
    float* y = out.data();
    for (const auto& b : blocks) {
        const float d = half(b.d);
        const float dmin = half(b.dmin);
        int sub = 0;
        for (int half128 = 0; half128 < 2; ++half128) {
            const std::uint8_t* q = b.qs.data() + 32 * half128;
            for (int shift = 0; shift < 8; shift += 2) {
                for (int part = 0; part < 2; ++part, ++sub) {  // two sub-blocks of 16 per shift
                    const std::uint8_t sc = b.scales[static_cast<std::size_t>(sub)];
                    const float dl = d * static_cast<float>(sc & 0xF);
                    const float ml = dmin * static_cast<float>(sc >> 4);
                    for (int l = 0; l < 16; ++l) {
                        *y++ = dl * static_cast<float>((q[l + 16 * part] >> shift) & 3) - ml;
                    }
                }
            }
        }
    }
}

void dequantize(std::span<const BlockQ3_K> blocks, std::span<float> out) noexcept {
    float* y = out.data();
    for (const auto& b : blocks) {
        const float d = half(b.d);
        int sub = 0;
        std::uint8_t mask = 1;  // the hmask bit of the current 32 elements
        for (int half128 = 0; half128 < 2; ++half128) {
            const std::uint8_t* q = b.qs.data() + 32 * half128;
            for (int shift = 0; shift < 8; shift += 2, mask = static_cast<std::uint8_t>(mask << 1)) {
                for (int part = 0; part < 2; ++part, ++sub) {
                    const float dl = d * static_cast<float>(unpack_scale_q3_k(sub, b.scales) - 32);
                    for (int l = 16 * part; l < 16 * part + 16; ++l) {
                        const int low = (q[l] >> shift) & 3;
                        const int minus = (b.hmask[static_cast<std::size_t>(l)] & mask) ? 0 : 4;
                        *y++ = dl * static_cast<float>(low - minus);
                    }
                }
            }
        }
    }
}

// Q4_K and Q5_K: four chunks of 64; byte l of a chunk's 32 qs bytes holds element l (low
// nibble, sub-block 2c) and l + 32 (high nibble, sub-block 2c+1).
void dequantize(std::span<const BlockQ4_K> blocks, std::span<float> out) noexcept {
    float* y = out.data();
    for (const auto& b : blocks) {
        const float d = half(b.d);
        const float dmin = half(b.dmin);
        for (int chunk = 0; chunk < 4; ++chunk) {
            const std::uint8_t* q = b.qs.data() + 32 * chunk;
            const auto lo = unpack_scale_min_k4(2 * chunk, b.scales);
            const auto hi = unpack_scale_min_k4(2 * chunk + 1, b.scales);
            const float d1 = d * static_cast<float>(lo.scale), m1 = dmin * static_cast<float>(lo.min);
            const float d2 = d * static_cast<float>(hi.scale), m2 = dmin * static_cast<float>(hi.min);
            for (int l = 0; l < 32; ++l) *y++ = d1 * static_cast<float>(q[l] & 0xF) - m1;
            for (int l = 0; l < 32; ++l) *y++ = d2 * static_cast<float>(q[l] >> 4) - m2;
        }
    }
}

void dequantize(std::span<const BlockQ5_K> blocks, std::span<float> out) noexcept {
    float* y = out.data();
    for (const auto& b : blocks) {
        const float d = half(b.d);
        const float dmin = half(b.dmin);
        for (int chunk = 0; chunk < 4; ++chunk) {
            const std::uint8_t* q = b.qs.data() + 32 * chunk;
            const int bit_lo = 1 << (2 * chunk), bit_hi = 2 << (2 * chunk);  // qh bits of this chunk
            const auto lo = unpack_scale_min_k4(2 * chunk, b.scales);
            const auto hi = unpack_scale_min_k4(2 * chunk + 1, b.scales);
            const float d1 = d * static_cast<float>(lo.scale), m1 = dmin * static_cast<float>(lo.min);
            const float d2 = d * static_cast<float>(hi.scale), m2 = dmin * static_cast<float>(hi.min);
            for (int l = 0; l < 32; ++l) {
                const int v = (q[l] & 0xF) + ((b.qh[static_cast<std::size_t>(l)] & bit_lo) ? 16 : 0);
                *y++ = d1 * static_cast<float>(v) - m1;
            }
            for (int l = 0; l < 32; ++l) {
                const int v = (q[l] >> 4) + ((b.qh[static_cast<std::size_t>(l)] & bit_hi) ? 16 : 0);
                *y++ = d2 * static_cast<float>(v) - m2;
            }
        }
    }
}

// Q6_K: two halves of 128; in each, ql byte l holds the low nibbles of elements l (and l+64),
// ql byte l+32 those of l+32 (and l+96); qh byte l holds the top two bits of all four.
void dequantize(std::span<const BlockQ6_K> blocks, std::span<float> out) noexcept {
    float* y = out.data();
    for (const auto& b : blocks) {
        const float d = half(b.d);
        for (int half128 = 0; half128 < 2; ++half128) {
            const std::uint8_t* ql = b.ql.data() + 64 * half128;
            const std::uint8_t* qh = b.qh.data() + 32 * half128;
            const std::int8_t* sc = b.scales.data() + 8 * half128;
            for (int l = 0; l < 32; ++l) {
                const int s = l / 16;
                const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
                const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
                const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                y[l] = d * static_cast<float>(sc[s]) * static_cast<float>(q1);
                y[l + 32] = d * static_cast<float>(sc[s + 2]) * static_cast<float>(q2);
                y[l + 64] = d * static_cast<float>(sc[s + 4]) * static_cast<float>(q3);
                y[l + 96] = d * static_cast<float>(sc[s + 6]) * static_cast<float>(q4);
            }
            y += 128;
        }
    }
}

void dequantize(std::span<const BlockQ8_K> blocks, std::span<float> out) noexcept {
    float* y = out.data();
    for (const auto& b : blocks) {
        for (int j = 0; j < 256; ++j) *y++ = b.d * static_cast<float>(b.qs[static_cast<std::size_t>(j)]);
    }
}

void dequantize(std::span<const BlockIQ4_NL> blocks, std::span<float> out) noexcept {
    float* y = out.data();
    for (const auto& b : blocks) {
        const float d = half(b.d);
        for (int j = 0; j < 16; ++j) {
            y[j] = d * static_cast<float>(kIq4nlValues[b.qs[j] & 0xF]);
            y[j + 16] = d * static_cast<float>(kIq4nlValues[b.qs[j] >> 4]);
        }
        y += 32;
    }
}

// As ggml's dequantize_row_mxfp4: the (doubled) E2M1 value times the halved E8M0 scale.
void dequantize(std::span<const BlockMXFP4> blocks, std::span<float> out) noexcept {
    float* y = out.data();
    for (const auto& b : blocks) {
        const float d = e8m0_to_f32_half(b.e);
        for (int j = 0; j < 16; ++j) {
            y[j] = static_cast<float>(kMxfp4Values[b.qs[j] & 0xF]) * d;
            y[j + 16] = static_cast<float>(kMxfp4Values[b.qs[j] >> 4]) * d;
        }
        y += 32;
    }
}

void dequantize(std::span<const BlockIQ4_XS> blocks, std::span<float> out) noexcept {
    float* y = out.data();
    for (const auto& b : blocks) {
        const float d = half(b.d);
        for (int sub = 0; sub < 8; ++sub) {
            const int low = (b.scales_l[static_cast<std::size_t>(sub / 2)] >> (4 * (sub % 2))) & 0xF;
            const int high = (b.scales_h >> (2 * sub)) & 3;
            const float dl = d * static_cast<float>((low | (high << 4)) - 32);
            const std::uint8_t* qs = b.qs.data() + 16 * sub;
            for (int j = 0; j < 16; ++j) {
                y[j] = dl * static_cast<float>(kIq4nlValues[qs[j] & 0xF]);
                y[j + 16] = dl * static_cast<float>(kIq4nlValues[qs[j] >> 4]);
            }
            y += 32;
        }
    }
}

namespace {

// TQ1_0 stores five trits t0..t4 in a byte as ceil(256 * (t0 t1 t2 t3 t4)_3 / 243): the
// n-th trit is the integer part of 3 * frac, where frac is the byte shifted left n trits
// (mod 256), read as a fraction of 256.
int tq1_trit(std::uint8_t byte, int n) {
    static constexpr std::uint8_t kPow3[5] = {1, 3, 9, 27, 81};
    const auto shifted = static_cast<std::uint8_t>(byte * kPow3[n]);  // mod 256 by design
    return ((shifted * 3) >> 8) - 1;
}

}  // namespace

void dequantize(std::span<const BlockTQ1_0> blocks, std::span<float> out) noexcept {
    float* y = out.data();
    for (const auto& b : blocks) {
        const float d = half(b.d);
        // 32 bytes x 5 trits, then 16 bytes x 5 trits, then 4 bytes x 4 trits.
        for (int n = 0; n < 5; ++n) {
            for (int m = 0; m < 32; ++m) *y++ = static_cast<float>(tq1_trit(b.qs[static_cast<std::size_t>(m)], n)) * d;
        }
        for (int n = 0; n < 5; ++n) {
            for (int m = 32; m < 48; ++m) *y++ = static_cast<float>(tq1_trit(b.qs[static_cast<std::size_t>(m)], n)) * d;
        }
        for (int n = 0; n < 4; ++n) {
            for (int m = 0; m < 4; ++m) *y++ = static_cast<float>(tq1_trit(b.qh[static_cast<std::size_t>(m)], n)) * d;
        }
    }
}

void dequantize(std::span<const BlockTQ2_0> blocks, std::span<float> out) noexcept {
    float* y = out.data();
    for (const auto& b : blocks) {
        const float d = half(b.d);
        for (int j = 0; j < 64; j += 32) {
            for (int shift = 0; shift < 8; shift += 2) {
                for (int m = 0; m < 32; ++m) {
                    const int q = (b.qs[static_cast<std::size_t>(j + m)] >> shift) & 3;
                    *y++ = static_cast<float>(q - 1) * d;
                }
            }
        }
    }
}

}  // namespace forge::kernels::scalar
