#include "kernels/rope.h"

#include "kernels/simd/vector_math.h"

#include <utility>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace forge::kernels::simd {
namespace {

// (v0, v1, v2, v3, ...) -> (v1, v0, v3, v2, ...): each element trades places with its partner
// in the pair. xsimd 8 has no shuffle, so this is one permute instruction per ISA.
Batch swap_pairs(Batch v) {
#if defined(__AVX512F__)
    return _mm512_permute_ps(v, 0xB1);
#elif defined(__AVX__)
    return _mm256_permute_ps(v, 0xB1);
#elif defined(__SSE2__)
    return _mm_shuffle_ps(v, v, 0xB1);
#else
    alignas(64) float lanes[kLanes];
    v.store_aligned(lanes);
    for (std::size_t lane = 0; lane + 1 < kLanes; lane += 2) std::swap(lanes[lane], lanes[lane + 1]);
    return Batch::load_aligned(lanes);
#endif
}

Batch load(const float* at, std::size_t count) {
    return count == kLanes ? Batch::load_unaligned(at) : load_tail(at, count, 0.0f);
}

void store(Batch v, float* at, std::size_t count) {
    if (count == kLanes) v.store_unaligned(at);
    else store_tail(v, at, count);
}

// Neox pairs (i, i + half) are two contiguous runs: rotate them a batch of pairs at a time.
void rotate_neox(const float* in, float* out, RopeRotation rotation) {
    const std::size_t half = rotation.cos.size();
    for (std::size_t i = 0; i < half; i += kLanes) {
        const std::size_t count = std::min(kLanes, half - i);
        const Batch a = load(in + i, count), b = load(in + half + i, count);
        const Batch c = load(rotation.cos.data() + i, count), s = load(rotation.sin.data() + i, count);
        store(a * c - b * s, out + i, count);
        store(a * s + b * c, out + half + i, count);
    }
}

// Normal pairs (2i, 2i + 1) are interleaved. With cos repeated per pair, (c, c), and sin
// signed per pair, (-s, s), every pair at once is  y = x * cos2 + swap_pairs(x) * sin2.
// The tables are expanded once per call (one position) into stack blocks of kBlock dims and
// reused for every head.
constexpr std::size_t kBlock = 256;

void rotate_normal(std::span<const float> x, std::size_t dim, RopeRotation rotation, std::span<float> y) {
    const std::size_t n_rot = 2 * rotation.cos.size();
    const std::size_t heads = x.size() / dim;
    alignas(64) float cos2[kBlock] = {};
    alignas(64) float sin2[kBlock] = {};
    for (std::size_t start = 0; start < n_rot; start += kBlock) {
        const std::size_t width = std::min(kBlock, n_rot - start);
        for (std::size_t j = 0; j < width; j += 2) {
            const std::size_t pair = (start + j) / 2;
            cos2[j] = cos2[j + 1] = rotation.cos[pair];
            sin2[j] = -rotation.sin[pair];
            sin2[j + 1] = rotation.sin[pair];
        }
        for (std::size_t head = 0; head < heads; ++head) {
            const float* in = x.data() + head * dim + start;
            float* out = y.data() + head * dim + start;
            for (std::size_t j = 0; j < width; j += kLanes) {
                const std::size_t count = std::min(kLanes, width - j);
                const Batch v = load(in + j, count);
                const Batch c = Batch::load_aligned(cos2 + j), s = Batch::load_aligned(sin2 + j);
                store(v * c + swap_pairs(v) * s, out + j, count);
            }
        }
    }
}

}  // namespace

// The angles are computed once per position in double precision and shared by all heads:
// nothing to gain from vectorizing them, and one definition keeps both backends identical.
void rope_angles(double position, const RopeFrequencies& frequencies, std::span<float> cos,
                 std::span<float> sin) noexcept {
    scalar::rope_angles(position, frequencies, cos, sin);
}

void rope_angles(double position, float theta_base, float freq_scale, std::span<float> cos,
                 std::span<float> sin) noexcept {
    scalar::rope_angles(position, theta_base, freq_scale, cos, sin);
}

void rope(std::span<const float> x, std::int64_t head_dim, RopeMode mode, RopeRotation rotation,
          std::span<float> y) noexcept {
    const auto dim = static_cast<std::size_t>(head_dim);
    const std::size_t n_rot = 2 * rotation.cos.size();
    if (mode == RopeMode::Neox) {
        for (std::size_t head = 0; head < x.size() / dim; ++head) {
            rotate_neox(x.data() + head * dim, y.data() + head * dim, rotation);
        }
    } else {
        rotate_normal(x, dim, rotation, y);
    }
    if (n_rot < dim && x.data() != y.data()) {
        for (std::size_t head = 0; head < x.size() / dim; ++head) {
            std::copy(x.begin() + static_cast<std::ptrdiff_t>(head * dim + n_rot),
                      x.begin() + static_cast<std::ptrdiff_t>((head + 1) * dim),
                      y.begin() + static_cast<std::ptrdiff_t>(head * dim + n_rot));
        }
    }
}

}  // namespace forge::kernels::simd
