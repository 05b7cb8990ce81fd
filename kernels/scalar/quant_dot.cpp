// Quantized dot products, the specification (see kernels/quant_dot.h for the arithmetic
// contract). Each weight block is first unpacked to small integers (the same unpacking as
// the decoders in dequantize.cpp, before scaling), then multiplied with the activation
// quants in plain int32 loops. Written after ggml's ggml_vec_dot_*_q8_* (ggml-cpu/quants.c, MIT).
#include "kernels/quant_dot.h"

#include <cstring>

namespace forge::kernels::scalar {

namespace {

float half(f16_bits h) { return f16_to_f32(h); }

int dot_ints(const int* q, const std::int8_t* a, int n) {
    int sum = 0;
    for (int i = 0; i < n; ++i) sum += q[i] * a[i];
    return sum;
}

int sum_ints(const std::int8_t* a, int n) {
    int sum = 0;
    for (int i = 0; i < n; ++i) sum += a[i];
    return sum;
}

// ---- unpacking: element i of the block as an integer, before any scale -----------------

void unpack(const BlockQ4_0& b, int* q) {
    for (int j = 0; j < 16; ++j) {
        q[j] = (b.qs[j] & 0xF) - 8;
        q[j + 16] = (b.qs[j] >> 4) - 8;
    }
}

void unpack(const BlockQ4_1& b, int* q) {
    for (int j = 0; j < 16; ++j) {
        q[j] = b.qs[j] & 0xF;
        q[j + 16] = b.qs[j] >> 4;
    }
}

std::uint32_t q5_high_bits(const std::array<std::uint8_t, 4>& qh) {
    std::uint32_t bits;
    std::memcpy(&bits, qh.data(), 4);
    return bits;
}

template <typename Block>
void unpack_q5(const Block& b, int* q, int offset) {
    const std::uint32_t qh = q5_high_bits(b.qh);
    for (int j = 0; j < 16; ++j) {
        q[j] = ((b.qs[j] & 0xF) | static_cast<int>(((qh >> j) & 1u) << 4)) - offset;
        q[j + 16] = ((b.qs[j] >> 4) | static_cast<int>(((qh >> (j + 16)) & 1u) << 4)) - offset;
    }
}

void unpack(const BlockIQ4_NL& b, int* q) {
    for (int j = 0; j < 16; ++j) {
        q[j] = kIq4nlValues[b.qs[j] & 0xF];
        q[j + 16] = kIq4nlValues[b.qs[j] >> 4];
    }
}

void unpack(const BlockQ2_K& b, int* q) {
    for (int i = 0; i < 256; ++i) {
        const int half128 = i / 128, l = i % 32, shift = 2 * ((i % 128) / 32);
        q[i] = (b.qs[static_cast<std::size_t>(32 * half128 + l)] >> shift) & 3;
    }
}

void unpack(const BlockQ3_K& b, int* q) {
    for (int i = 0; i < 256; ++i) {
        const int half128 = i / 128, l = i % 32, shift = 2 * ((i % 128) / 32);
        const int low = (b.qs[static_cast<std::size_t>(32 * half128 + l)] >> shift) & 3;
        const bool high = (b.hmask[static_cast<std::size_t>(l)] >> (i / 32)) & 1;
        q[i] = low - (high ? 0 : 4);
    }
}

void unpack(const BlockQ4_K& b, int* q) {
    for (int chunk = 0; chunk < 4; ++chunk) {
        for (int l = 0; l < 32; ++l) {
            q[64 * chunk + l] = b.qs[static_cast<std::size_t>(32 * chunk + l)] & 0xF;
            q[64 * chunk + l + 32] = b.qs[static_cast<std::size_t>(32 * chunk + l)] >> 4;
        }
    }
}

void unpack_q5_k(const BlockQ5_K& b, int* q) {
    for (int chunk = 0; chunk < 4; ++chunk) {
        for (int l = 0; l < 32; ++l) {
            const auto byte = b.qs[static_cast<std::size_t>(32 * chunk + l)];
            const auto high = b.qh[static_cast<std::size_t>(l)];
            q[64 * chunk + l] = (byte & 0xF) | (((high >> (2 * chunk)) & 1) << 4);
            q[64 * chunk + l + 32] = (byte >> 4) | (((high >> (2 * chunk + 1)) & 1) << 4);
        }
    }
}

void unpack(const BlockQ6_K& b, int* q) {
    for (int h = 0; h < 2; ++h) {
        const std::uint8_t* ql = b.ql.data() + 64 * h;
        const std::uint8_t* qh = b.qh.data() + 32 * h;
        int* out = q + 128 * h;
        for (int l = 0; l < 32; ++l) {
            out[l] = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
            out[l + 32] = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
            out[l + 64] = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
            out[l + 96] = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
        }
    }
}

void unpack(const BlockIQ4_XS& b, int* q) {
    for (int sub = 0; sub < 8; ++sub) {
        const std::uint8_t* qs = b.qs.data() + 16 * sub;
        for (int j = 0; j < 16; ++j) {
            q[32 * sub + j] = kIq4nlValues[qs[j] & 0xF];
            q[32 * sub + j + 16] = kIq4nlValues[qs[j] >> 4];
        }
    }
}

int tq1_trit(std::uint8_t byte, int n) {
    static constexpr std::uint8_t kPow3[5] = {1, 3, 9, 27, 81};
    const auto shifted = static_cast<std::uint8_t>(byte * kPow3[n]);
    return ((shifted * 3) >> 8) - 1;
}

void unpack(const BlockTQ1_0& b, int* q) {
    int i = 0;
    for (int n = 0; n < 5; ++n)
        for (int m = 0; m < 32; ++m) q[i++] = tq1_trit(b.qs[static_cast<std::size_t>(m)], n);
    for (int n = 0; n < 5; ++n)
        for (int m = 32; m < 48; ++m) q[i++] = tq1_trit(b.qs[static_cast<std::size_t>(m)], n);
    for (int n = 0; n < 4; ++n)
        for (int m = 0; m < 4; ++m) q[i++] = tq1_trit(b.qh[static_cast<std::size_t>(m)], n);
}

void unpack(const BlockTQ2_0& b, int* q) {
    int i = 0;
    for (int j = 0; j < 64; j += 32)
        for (int shift = 0; shift < 8; shift += 2)
            for (int m = 0; m < 32; ++m) q[i++] = ((b.qs[static_cast<std::size_t>(j + m)] >> shift) & 3) - 1;
}

// ---- the block loops -----------------------------------------------------------------------

// 32-element formats without a min: (dw * da) * Σ q a.
template <typename Block, typename Unpack>
float dot_symmetric(std::span<const Block> w, std::span<const BlockQ8_0> a, Unpack unpack_block) {
    float sum = 0.0f;
    int q[32];
    for (std::size_t i = 0; i < w.size(); ++i) {
        unpack_block(w[i], q);
        const int isum = dot_ints(q, a[i].qs.data(), 32);
        sum += half(w[i].d) * half(a[i].d) * static_cast<float>(isum);
    }
    return sum;
}

// 32-element formats with a min m: (dw * da) * Σ q a + (m * da) * Σ a.
template <typename Block, typename Unpack>
float dot_with_min(std::span<const Block> w, std::span<const BlockQ8_0> a, Unpack unpack_block) {
    float sum = 0.0f;
    int q[32];
    for (std::size_t i = 0; i < w.size(); ++i) {
        unpack_block(w[i], q);
        const int isum = dot_ints(q, a[i].qs.data(), 32);
        const int asum = sum_ints(a[i].qs.data(), 32);
        const float da = half(a[i].d);
        sum += half(w[i].d) * da * static_cast<float>(isum) + half(w[i].m) * da * static_cast<float>(asum);
    }
    return sum;
}

// Super-block formats: isum = Σ_j scale_j Σ q a over sub-blocks of `sub` elements,
// imin = Σ_j min_j Σ a; term = (da * dw) * isum - (da * dmin) * imin.
struct SuperBlockInts {
    int isum = 0;
    int imin = 0;
};

template <typename ScaleOf, typename MinOf>
SuperBlockInts superblock_ints(const int* q, const BlockQ8_K& a, int sub, ScaleOf scale_of, MinOf min_of) {
    SuperBlockInts r;
    for (int j = 0; j < 256 / sub; ++j) {
        const std::int8_t* aj = a.qs.data() + sub * j;
        r.isum += scale_of(j) * dot_ints(q + sub * j, aj, sub);
        r.imin += min_of(j) * sum_ints(aj, sub);
    }
    return r;
}

constexpr auto kNoMin = [](int) { return 0; };

}  // namespace

float dot(std::span<const BlockQ4_0> w, std::span<const BlockQ8_0> a) noexcept {
    return dot_symmetric(w, a, [](const BlockQ4_0& b, int* q) { unpack(b, q); });
}
float dot(std::span<const BlockQ5_0> w, std::span<const BlockQ8_0> a) noexcept {
    return dot_symmetric(w, a, [](const BlockQ5_0& b, int* q) { unpack_q5(b, q, 16); });
}
float dot(std::span<const BlockQ8_0> w, std::span<const BlockQ8_0> a) noexcept {
    return dot_symmetric(w, a, [](const BlockQ8_0& b, int* q) {
        for (int j = 0; j < 32; ++j) q[j] = b.qs[static_cast<std::size_t>(j)];
    });
}
float dot(std::span<const BlockIQ4_NL> w, std::span<const BlockQ8_0> a) noexcept {
    return dot_symmetric(w, a, [](const BlockIQ4_NL& b, int* q) { unpack(b, q); });
}
float dot(std::span<const BlockQ4_1> w, std::span<const BlockQ8_0> a) noexcept {
    return dot_with_min(w, a, [](const BlockQ4_1& b, int* q) { unpack(b, q); });
}
float dot(std::span<const BlockQ5_1> w, std::span<const BlockQ8_0> a) noexcept {
    return dot_with_min(w, a, [](const BlockQ5_1& b, int* q) { unpack_q5(b, q, 0); });
}

float dot(std::span<const BlockQ2_K> w, std::span<const BlockQ8_K> a) noexcept {
    float sum = 0.0f;
    int q[256];
    for (std::size_t i = 0; i < w.size(); ++i) {
        unpack(w[i], q);
        const auto& s = w[i].scales;
        const auto r = superblock_ints(q, a[i], 16, [&](int j) { return s[static_cast<std::size_t>(j)] & 0xF; },
                                       [&](int j) { return s[static_cast<std::size_t>(j)] >> 4; });
        sum += a[i].d * half(w[i].d) * static_cast<float>(r.isum) - a[i].d * half(w[i].dmin) * static_cast<float>(r.imin);
    }
    return sum;
}

float dot(std::span<const BlockQ3_K> w, std::span<const BlockQ8_K> a) noexcept {
    float sum = 0.0f;
    int q[256];
    for (std::size_t i = 0; i < w.size(); ++i) {
        unpack(w[i], q);
        const auto r = superblock_ints(q, a[i], 16, [&](int j) { return unpack_scale_q3_k(j, w[i].scales) - 32; }, kNoMin);
        sum += a[i].d * half(w[i].d) * static_cast<float>(r.isum);
    }
    return sum;
}

float dot(std::span<const BlockQ4_K> w, std::span<const BlockQ8_K> a) noexcept {
    float sum = 0.0f;
    int q[256];
    for (std::size_t i = 0; i < w.size(); ++i) {
        unpack(w[i], q);
        const auto& s = w[i].scales;
        const auto r = superblock_ints(q, a[i], 32, [&](int j) { return int{unpack_scale_min_k4(j, s).scale}; },
                                       [&](int j) { return int{unpack_scale_min_k4(j, s).min}; });
        sum += a[i].d * half(w[i].d) * static_cast<float>(r.isum) - a[i].d * half(w[i].dmin) * static_cast<float>(r.imin);
    }
    return sum;
}

float dot(std::span<const BlockQ5_K> w, std::span<const BlockQ8_K> a) noexcept {
    float sum = 0.0f;
    int q[256];
    for (std::size_t i = 0; i < w.size(); ++i) {
        unpack_q5_k(w[i], q);
        const auto& s = w[i].scales;
        const auto r = superblock_ints(q, a[i], 32, [&](int j) { return int{unpack_scale_min_k4(j, s).scale}; },
                                       [&](int j) { return int{unpack_scale_min_k4(j, s).min}; });
        sum += a[i].d * half(w[i].d) * static_cast<float>(r.isum) - a[i].d * half(w[i].dmin) * static_cast<float>(r.imin);
    }
    return sum;
}

float dot(std::span<const BlockQ6_K> w, std::span<const BlockQ8_K> a) noexcept {
    float sum = 0.0f;
    int q[256];
    for (std::size_t i = 0; i < w.size(); ++i) {
        unpack(w[i], q);
        const auto r = superblock_ints(q, a[i], 16, [&](int j) { return int{w[i].scales[static_cast<std::size_t>(j)]}; }, kNoMin);
        sum += a[i].d * half(w[i].d) * static_cast<float>(r.isum);
    }
    return sum;
}

float dot(std::span<const BlockQ8_K> w, std::span<const BlockQ8_K> a) noexcept {
    float sum = 0.0f;
    for (std::size_t i = 0; i < w.size(); ++i) {
        int isum = 0;
        for (int j = 0; j < 256; ++j) isum += w[i].qs[static_cast<std::size_t>(j)] * a[i].qs[static_cast<std::size_t>(j)];
        sum += a[i].d * w[i].d * static_cast<float>(isum);
    }
    return sum;
}

float dot(std::span<const BlockIQ4_XS> w, std::span<const BlockQ8_K> a) noexcept {
    float sum = 0.0f;
    int q[256];
    for (std::size_t i = 0; i < w.size(); ++i) {
        unpack(w[i], q);
        const auto& b = w[i];
        const auto r = superblock_ints(q, a[i], 32, [&](int j) {
            const int low = (b.scales_l[static_cast<std::size_t>(j / 2)] >> (4 * (j % 2))) & 0xF;
            return (low | (((b.scales_h >> (2 * j)) & 3) << 4)) - 32;
        }, kNoMin);
        sum += a[i].d * half(b.d) * static_cast<float>(r.isum);
    }
    return sum;
}

template <typename Block>
float dot_ternary(std::span<const Block> w, std::span<const BlockQ8_K> a) {
    float sum = 0.0f;
    int q[256];
    for (std::size_t i = 0; i < w.size(); ++i) {
        unpack(w[i], q);
        sum += a[i].d * half(w[i].d) * static_cast<float>(dot_ints(q, a[i].qs.data(), 256));
    }
    return sum;
}

float dot(std::span<const BlockTQ1_0> w, std::span<const BlockQ8_K> a) noexcept { return dot_ternary(w, a); }
float dot(std::span<const BlockTQ2_0> w, std::span<const BlockQ8_K> a) noexcept { return dot_ternary(w, a); }

}  // namespace forge::kernels::scalar
