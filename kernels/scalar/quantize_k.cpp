// Encoders for the K-quants (Q2_K .. Q6_K), written after ggml's quantize_row_q*_K_ref and
// their helpers make_qx_quants, make_q3_quants and make_qkx2_quants (ggml/src/ggml-quants.c,
// MIT). Each super-block is encoded in two passes: a search picks a float scale (and min)
// per sub-block; those are quantized to 4/6/8 bits against one f16 super-scale; then every
// value is re-quantized against the scale that will actually be decoded. Every float
// expression keeps ggml's operand order, since the searches compare near-equal errors.
#include "kernels/quantize.h"
#include "kernels/scalar/quantize_rounding.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace forge::kernels::scalar {

using rounding::nearest_int;

namespace {

constexpr float kGroupMaxEps = 1e-15f;  // GROUP_MAX_EPS: below this a group counts as zero

int clamp(int v, int lo, int hi) { return std::max(lo, std::min(hi, v)); }

// Symmetric scale search (make_qx_quants with rmse_type 1, no importance weights): try 19
// scales around -nmax/max and keep the one maximizing (Σ w x l)² / Σ w l², w = x².
// L receives quants in [0, 2 nmax).
float search_symmetric_scale(int n, int nmax, const float* x, std::int8_t* L) {
    float max = 0, amax = 0;
    for (int i = 0; i < n; ++i) {
        if (std::fabs(x[i]) > amax) {
            amax = std::fabs(x[i]);
            max = x[i];
        }
    }
    if (amax < kGroupMaxEps) {
        std::fill(L, L + n, std::int8_t{0});
        return 0.f;
    }
    float iscale = static_cast<float>(-nmax) / max;
    float sumlx = 0, suml2 = 0;
    for (int i = 0; i < n; ++i) {
        const int l = clamp(nearest_int(iscale * x[i]), -nmax, nmax - 1);
        L[i] = static_cast<std::int8_t>(l + nmax);
        const float w = x[i] * x[i];
        sumlx += w * x[i] * static_cast<float>(l);
        suml2 += w * static_cast<float>(l) * static_cast<float>(l);
    }
    float scale = suml2 != 0.0f ? sumlx / suml2 : 0.0f;
    float best = scale * sumlx;
    for (int is = -9; is <= 9; ++is) {
        if (is == 0) continue;
        iscale = -(static_cast<float>(nmax) + 0.1f * static_cast<float>(is)) / max;
        sumlx = suml2 = 0;
        for (int i = 0; i < n; ++i) {
            const int l = clamp(nearest_int(iscale * x[i]), -nmax, nmax - 1);
            const float w = x[i] * x[i];
            sumlx += w * x[i] * static_cast<float>(l);
            suml2 += w * static_cast<float>(l) * static_cast<float>(l);
        }
        if (suml2 > 0 && sumlx * sumlx > best * suml2) {
            for (int i = 0; i < n; ++i) {
                L[i] = static_cast<std::int8_t>(nmax + clamp(nearest_int(iscale * x[i]), -nmax, nmax - 1));
            }
            scale = sumlx / suml2;
            best = scale * sumlx;
        }
    }
    return scale;
}

// Q3_K's symmetric search (make_q3_quants with do_rmse): start from -nmax/max, then up to
// five rounds of coordinate descent, moving one quant at a time when that improves the
// weighted fit. L receives quants in [0, 2 nmax).
float search_q3_scale(int n, int nmax, const float* x, std::int8_t* L) {
    float max = 0, amax = 0;
    for (int i = 0; i < n; ++i) {
        if (std::fabs(x[i]) > amax) {
            amax = std::fabs(x[i]);
            max = x[i];
        }
    }
    if (amax < kGroupMaxEps) {
        std::fill(L, L + n, std::int8_t{0});
        return 0.f;
    }
    const float iscale = static_cast<float>(-nmax) / max;
    float sumlx = 0, suml2 = 0;
    for (int i = 0; i < n; ++i) {
        const int l = clamp(nearest_int(iscale * x[i]), -nmax, nmax - 1);
        L[i] = static_cast<std::int8_t>(l);
        const float w = x[i] * x[i];
        sumlx += w * x[i] * static_cast<float>(l);
        suml2 += w * static_cast<float>(l) * static_cast<float>(l);
    }
    for (int round = 0; round < 5; ++round) {
        int changed = 0;
        for (int i = 0; i < n; ++i) {
            const float w = x[i] * x[i];
            float slx = sumlx - w * x[i] * static_cast<float>(L[i]);
            if (slx > 0) {
                float sl2 = suml2 - w * static_cast<float>(L[i]) * static_cast<float>(L[i]);
                const int new_l = clamp(nearest_int(x[i] * sl2 / slx), -nmax, nmax - 1);
                if (new_l != L[i]) {
                    slx += w * x[i] * static_cast<float>(new_l);
                    sl2 += w * static_cast<float>(new_l) * static_cast<float>(new_l);
                    if (sl2 > 0 && slx * slx * suml2 > sumlx * sumlx * sl2) {
                        L[i] = static_cast<std::int8_t>(new_l);
                        sumlx = slx;
                        suml2 = sl2;
                        ++changed;
                    }
                }
            }
        }
        if (changed == 0) break;
    }
    for (int i = 0; i < n; ++i) L[i] = static_cast<std::int8_t>(L[i] + nmax);
    return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

// Asymmetric scale-and-min search (make_qkx2_quants): x ≈ scale * l - min, l in [0, nmax].
// Tries nstep + 1 scales and solves the weighted least-squares (scale, min) for each rounding,
// keeping the one with the smallest weighted error (absolute if use_mad, else squared).
// Returns the scale; *the_min receives the (positive) min.
float search_scale_and_min(int n, int nmax, const float* x, const float* weights, std::uint8_t* L, float* the_min,
                           std::uint8_t* Laux, float rmin, float rdelta, int nstep, bool use_mad) {
    float min = x[0], max = x[0];
    float sum_w = weights[0];
    float sum_x = sum_w * x[0];
    for (int i = 1; i < n; ++i) {
        if (x[i] < min) min = x[i];
        if (x[i] > max) max = x[i];
        sum_w += weights[i];
        sum_x += weights[i] * x[i];
    }
    if (min > 0) min = 0;
    if (max == min) {
        std::fill(L, L + n, std::uint8_t{0});
        *the_min = -min;
        return 0.f;
    }
    float iscale = static_cast<float>(nmax) / (max - min);
    float scale = 1 / iscale;
    auto error_of = [&](float d) { return use_mad ? std::fabs(d) : d * d; };
    float best_error = 0;
    for (int i = 0; i < n; ++i) {
        L[i] = static_cast<std::uint8_t>(clamp(nearest_int(iscale * (x[i] - min)), 0, nmax));
        best_error += weights[i] * error_of(scale * static_cast<float>(L[i]) + min - x[i]);
    }
    for (int is = 0; is <= nstep; ++is) {
        iscale = (rmin + rdelta * static_cast<float>(is) + static_cast<float>(nmax)) / (max - min);
        float sum_l = 0, sum_l2 = 0, sum_xl = 0;
        for (int i = 0; i < n; ++i) {
            const int l = clamp(nearest_int(iscale * (x[i] - min)), 0, nmax);
            Laux[i] = static_cast<std::uint8_t>(l);
            const float w = weights[i];
            sum_l += w * static_cast<float>(l);
            sum_l2 += w * static_cast<float>(l) * static_cast<float>(l);
            sum_xl += w * static_cast<float>(l) * x[i];
        }
        const float D = sum_w * sum_l2 - sum_l * sum_l;
        if (D > 0) {
            float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
            float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
            if (this_min > 0) {
                this_min = 0;
                this_scale = sum_xl / sum_l2;
            }
            float cur_error = 0;
            for (int i = 0; i < n; ++i) {
                cur_error += weights[i] * error_of(this_scale * static_cast<float>(Laux[i]) + this_min - x[i]);
            }
            if (cur_error < best_error) {
                std::copy(Laux, Laux + n, L);
                best_error = cur_error;
                scale = this_scale;
                min = this_min;
            }
        }
    }
    *the_min = -min;
    return scale;
}

// Two bits per quant, four quants per byte: in each half of 128, byte l holds l, l+32, l+64, l+96.
void pack_2bit(const std::uint8_t* L, std::uint8_t* qs) {
    for (int j = 0; j < 256; j += 128) {
        for (int l = 0; l < 32; ++l) {
            qs[j / 4 + l] = static_cast<std::uint8_t>(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4) |
                                                      (L[j + l + 96] << 6));
        }
    }
}

}  // namespace

void quantize(std::span<const float> x, std::span<BlockQ2_K> out) noexcept {
    const float* v = x.data();
    constexpr float kQ4Scale = 15.f;
    for (auto& b : out) {
        std::uint8_t L[256], Laux[16];
        float weights[16], mins[16], scales[16];
        float max_scale = 0, max_min = 0;
        for (int j = 0; j < 16; ++j) {
            for (int l = 0; l < 16; ++l) weights[l] = std::fabs(v[16 * j + l]);
            scales[j] = search_scale_and_min(16, 3, v + 16 * j, weights, L + 16 * j, &mins[j], Laux, -0.5f, 0.1f, 15, true);
            max_scale = std::max(max_scale, scales[j]);
            max_min = std::max(max_min, mins[j]);
        }
        // Scales in the low nibble, mins in the high nibble, each against its own f16 super-scale.
        if (max_scale > 0) {
            const float iscale = kQ4Scale / max_scale;
            for (int j = 0; j < 16; ++j) b.scales[static_cast<std::size_t>(j)] = static_cast<std::uint8_t>(nearest_int(iscale * scales[j]));
            b.d = f32_to_f16(max_scale / kQ4Scale);
        } else {
            b.scales.fill(0);
            b.d = f32_to_f16(0.f);
        }
        if (max_min > 0) {
            const float iscale = kQ4Scale / max_min;
            for (int j = 0; j < 16; ++j) {
                b.scales[static_cast<std::size_t>(j)] |= static_cast<std::uint8_t>(nearest_int(iscale * mins[j]) << 4);
            }
            b.dmin = f32_to_f16(max_min / kQ4Scale);
        } else {
            b.dmin = f32_to_f16(0.f);
        }
        for (int j = 0; j < 16; ++j) {
            const std::uint8_t sc = b.scales[static_cast<std::size_t>(j)];
            const float d = f16_to_f32(b.d) * static_cast<float>(sc & 0xF);
            if (d == 0.0f) continue;  // keep the search's quants
            const float dm = f16_to_f32(b.dmin) * static_cast<float>(sc >> 4);
            for (int i = 0; i < 16; ++i) L[16 * j + i] = static_cast<std::uint8_t>(clamp(nearest_int((v[16 * j + i] + dm) / d), 0, 3));
        }
        pack_2bit(L, b.qs.data());
        v += 256;
    }
}

void quantize(std::span<const float> x, std::span<BlockQ3_K> out) noexcept {
    const float* v = x.data();
    for (auto& b : out) {
        std::int8_t L[256];
        float scales[16];
        float max_scale = 0, amax = 0;
        for (int j = 0; j < 16; ++j) {
            scales[j] = search_q3_scale(16, 4, v + 16 * j, L + 16 * j);
            if (std::fabs(scales[j]) > amax) {
                amax = std::fabs(scales[j]);
                max_scale = scales[j];
            }
        }
        b.scales.fill(0);
        if (max_scale != 0.0f) {
            const float iscale = -32.f / max_scale;
            for (int j = 0; j < 16; ++j) {
                // ggml stores nearest_int's result in an int8_t before clamping: keep the wrap.
                const auto wrapped = static_cast<std::int8_t>(nearest_int(iscale * scales[j]));
                const int l = clamp(wrapped, -32, 31) + 32;
                const auto u = static_cast<std::size_t>(j);
                if (j < 8) b.scales[u] = static_cast<std::uint8_t>(l & 0xF);
                else b.scales[u - 8] |= static_cast<std::uint8_t>((l & 0xF) << 4);
                b.scales[u % 4 + 8] |= static_cast<std::uint8_t>((l >> 4) << (2 * (j / 4)));
            }
            b.d = f32_to_f16(1 / iscale);
        } else {
            b.d = f32_to_f16(0.f);
        }
        for (int j = 0; j < 16; ++j) {
            const float d = f16_to_f32(b.d) * static_cast<float>(unpack_scale_q3_k(j, b.scales) - 32);
            if (d == 0.0f) continue;
            for (int i = 0; i < 16; ++i) L[16 * j + i] = static_cast<std::int8_t>(clamp(nearest_int(v[16 * j + i] / d), -4, 3) + 4);
        }
        // The third bit goes to hmask: bit k of byte m belongs to element 32 k + m.
        b.hmask.fill(0);
        for (int j = 0; j < 256; ++j) {
            if (L[j] > 3) {
                b.hmask[static_cast<std::size_t>(j % 32)] |= static_cast<std::uint8_t>(1 << (j / 32));
                L[j] = static_cast<std::int8_t>(L[j] - 4);
            }
        }
        std::uint8_t low[256];
        for (int j = 0; j < 256; ++j) low[j] = static_cast<std::uint8_t>(L[j]);
        pack_2bit(low, b.qs.data());
        v += 256;
    }
}

namespace {

// Q4_K and Q5_K share everything but the quant width and the search's step range.
struct KQuantParams {
    int nmax;
    float rmin;
    int nstep;
};

// Pass one for Q4_K/Q5_K: per-32 scale and min search, weights |x| + rms(x), then both
// quantized to six bits against their maxima. Fills scales[12], d, dmin and L (the
// re-quantized values against the decoded scales).
template <typename Block>
void encode_scales_and_quants(const float* v, Block& b, std::uint8_t* L, KQuantParams p) {
    std::uint8_t Laux[32];
    float weights[32], mins[8], scales[8];
    float max_scale = 0, max_min = 0;
    for (int j = 0; j < 8; ++j) {
        float sum_x2 = 0;
        for (int l = 0; l < 32; ++l) sum_x2 += v[32 * j + l] * v[32 * j + l];
        const float av_x = std::sqrt(sum_x2 / 32);
        for (int l = 0; l < 32; ++l) weights[l] = av_x + std::fabs(v[32 * j + l]);
        scales[j] = search_scale_and_min(32, p.nmax, v + 32 * j, weights, L + 32 * j, &mins[j], Laux, p.rmin, 0.1f,
                                         p.nstep, false);
        max_scale = std::max(max_scale, scales[j]);
        max_min = std::max(max_min, mins[j]);
    }
    const float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
    const float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
    for (int j = 0; j < 8; ++j) {
        // uint8_t, as in ggml: nearest_int's result wraps to a byte before the clamp to 63.
        const auto ls = std::min<std::uint8_t>(63, static_cast<std::uint8_t>(nearest_int(inv_scale * scales[j])));
        const auto lm = std::min<std::uint8_t>(63, static_cast<std::uint8_t>(nearest_int(inv_min * mins[j])));
        const auto u = static_cast<std::size_t>(j);
        if (j < 4) {
            b.scales[u] = ls;
            b.scales[u + 4] = lm;
        } else {
            b.scales[u + 4] = static_cast<std::uint8_t>((ls & 0xF) | ((lm & 0xF) << 4));
            b.scales[u - 4] |= static_cast<std::uint8_t>((ls >> 4) << 6);
            b.scales[u] |= static_cast<std::uint8_t>((lm >> 4) << 6);
        }
    }
    b.d = f32_to_f16(max_scale / 63.f);
    b.dmin = f32_to_f16(max_min / 63.f);
    for (int j = 0; j < 8; ++j) {
        const auto sm = unpack_scale_min_k4(j, b.scales);
        const float d = f16_to_f32(b.d) * static_cast<float>(sm.scale);
        if (d == 0.0f) continue;
        const float dm = f16_to_f32(b.dmin) * static_cast<float>(sm.min);
        for (int i = 0; i < 32; ++i) {
            L[32 * j + i] = static_cast<std::uint8_t>(clamp(nearest_int((v[32 * j + i] + dm) / d), 0, p.nmax));
        }
    }
}

}  // namespace

void quantize(std::span<const float> x, std::span<BlockQ4_K> out) noexcept {
    const float* v = x.data();
    for (auto& b : out) {
        std::uint8_t L[256];
        b.scales.fill(0);
        encode_scales_and_quants(v, b, L, {15, -1.f, 20});
        for (int chunk = 0; chunk < 4; ++chunk) {
            for (int l = 0; l < 32; ++l) {
                b.qs[static_cast<std::size_t>(32 * chunk + l)] =
                    static_cast<std::uint8_t>(L[64 * chunk + l] | (L[64 * chunk + l + 32] << 4));
            }
        }
        v += 256;
    }
}

void quantize(std::span<const float> x, std::span<BlockQ5_K> out) noexcept {
    const float* v = x.data();
    for (auto& b : out) {
        std::uint8_t L[256];
        b.scales.fill(0);
        encode_scales_and_quants(v, b, L, {31, -0.5f, 15});
        b.qh.fill(0);
        for (int chunk = 0; chunk < 4; ++chunk) {
            for (int j = 0; j < 32; ++j) {
                int l1 = L[64 * chunk + j], l2 = L[64 * chunk + j + 32];
                const auto u = static_cast<std::size_t>(j);
                if (l1 > 15) {
                    l1 -= 16;
                    b.qh[u] |= static_cast<std::uint8_t>(1 << (2 * chunk));
                }
                if (l2 > 15) {
                    l2 -= 16;
                    b.qh[u] |= static_cast<std::uint8_t>(2 << (2 * chunk));
                }
                b.qs[static_cast<std::size_t>(32 * chunk + j)] = static_cast<std::uint8_t>(l1 | (l2 << 4));
            }
        }
        v += 256;
    }
}

void quantize(std::span<const float> x, std::span<BlockQ6_K> out) noexcept {
    const float* v = x.data();
    for (auto& b : out) {
        std::int8_t L[256];
        float scales[16];
        float max_scale = 0, max_abs_scale = 0;
        for (int j = 0; j < 16; ++j) {
            scales[j] = search_symmetric_scale(16, 32, v + 16 * j, L + 16 * j);
            if (std::fabs(scales[j]) > max_abs_scale) {
                max_abs_scale = std::fabs(scales[j]);
                max_scale = scales[j];
            }
        }
        if (max_abs_scale < kGroupMaxEps) {
            std::memset(&b, 0, sizeof b);
            v += 256;
            continue;
        }
        const float iscale = -128.f / max_scale;
        b.d = f32_to_f16(1 / iscale);
        for (int j = 0; j < 16; ++j) {
            b.scales[static_cast<std::size_t>(j)] = static_cast<std::int8_t>(std::min(127, nearest_int(iscale * scales[j])));
        }
        for (int j = 0; j < 16; ++j) {
            const float d = f16_to_f32(b.d) * static_cast<float>(b.scales[static_cast<std::size_t>(j)]);
            if (d == 0.0f) continue;
            for (int i = 0; i < 16; ++i) L[16 * j + i] = static_cast<std::int8_t>(clamp(nearest_int(v[16 * j + i] / d), -32, 31) + 32);
        }
        // Low nibbles: ql byte l holds l | (l+64) << 4, byte l+32 holds (l+32) | (l+96) << 4;
        // the top two bits of l, l+32, l+64, l+96 share qh byte l.
        for (int h = 0; h < 2; ++h) {
            std::uint8_t* ql = b.ql.data() + 64 * h;
            std::uint8_t* qh = b.qh.data() + 32 * h;
            const std::int8_t* Lh = L + 128 * h;
            for (int l = 0; l < 32; ++l) {
                ql[l] = static_cast<std::uint8_t>((Lh[l] & 0xF) | ((Lh[l + 64] & 0xF) << 4));
                ql[l + 32] = static_cast<std::uint8_t>((Lh[l + 32] & 0xF) | ((Lh[l + 96] & 0xF) << 4));
                qh[l] = static_cast<std::uint8_t>((Lh[l] >> 4) | ((Lh[l + 32] >> 4) << 2) | ((Lh[l + 64] >> 4) << 4) |
                                                  ((Lh[l + 96] >> 4) << 6));
            }
        }
        v += 256;
    }
}

}  // namespace forge::kernels::scalar
