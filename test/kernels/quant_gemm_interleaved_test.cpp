// The interleaved Q4_0 / Q8_0 GEMM (simd builds with AVX-512 VNNI): every output within the
// contract bound of kernels/quant_dot.h from scalar::dot, bit for bit equal to it where every
// partial sum is exact (power-of-two scales), and the same bits whether an output is computed
// with many activation rows or one (prefill or decode), in one call or group by group.
#include "kernels/quant_dot.h"
#include "kernels/quant_gemm_interleaved.h"
#include "test/kernels/quant_test_data.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#if defined(FORGE_INTERLEAVED_GEMM)

namespace forge::kernels {
namespace {

// A weight matrix [n x blocks] with its interleaved copy and activations [m x blocks] with
// their per-block info.
template <typename Block>
struct Operands {
    std::int64_t n, m, blocks;
    std::vector<Block> w;
    std::vector<BlockQ8_0> a;
    std::vector<CacheLine> packed;
    std::vector<ActivationBlockInfo> info;

    Operands(std::int64_t n_, std::int64_t m_, std::int64_t blocks_, std::vector<Block> w_, std::vector<BlockQ8_0> a_)
        : n(n_), m(m_), blocks(blocks_), w(std::move(w_)), a(std::move(a_)) {
        const std::int64_t groups = (n + kInterleave - 1) / kInterleave;
        packed.resize(static_cast<std::size_t>(groups) * interleaved_group_bytes<Block>(blocks) / sizeof(CacheLine));
        simd::interleave(w.data(), n, blocks, packed.front().bytes);
        info.resize(a.size());
        simd::activation_info(a.data(), static_cast<std::int64_t>(a.size()), kInterleavedOffset<Block>, info.data());
    }

    const std::byte* group(std::int64_t g) const {
        return packed.front().bytes + static_cast<std::size_t>(g) * interleaved_group_bytes<Block>(blocks);
    }

    // Outputs [row_begin, row_end) x [group_begin * 16, col_end) into y (stride y_stride).
    void run(std::int64_t row_begin, std::int64_t row_end, std::int64_t group_begin, std::int64_t col_end,
             std::vector<float>& y, std::int64_t y_stride) const {
        const std::int64_t c0 = group_begin * kInterleave;
        simd::gemm(InterleavedGemm<Block>{row_end - row_begin, col_end - c0, blocks, a.data() + row_begin * blocks,
                                          info.data() + row_begin * blocks, blocks, group(group_begin),
                                          y.data() + row_begin * y_stride + c0, y_stride});
    }

    float spec(std::int64_t r, std::int64_t c) const {
        const auto b = static_cast<std::size_t>(blocks);
        return scalar::dot(std::span<const Block>(w.data() + c * blocks, b),
                           std::span<const BlockQ8_0>(a.data() + r * blocks, b));
    }

    // M of the contract: Σ over blocks of |dw da| Σ |q a|, q the weight's signed quants.
    double magnitude(std::int64_t r, std::int64_t c) const {
        double sum = 0;
        for (std::int64_t b = 0; b < blocks; ++b) {
            const Block& wb = w[static_cast<std::size_t>(c * blocks + b)];
            const BlockQ8_0& ab = a[static_cast<std::size_t>(r * blocks + b)];
            long products = 0;
            for (int j = 0; j < 32; ++j) products += std::labs(static_cast<long>(quant(wb, j)) * ab.qs[static_cast<std::size_t>(j)]);
            sum += std::fabs(static_cast<double>(f16_to_f32(wb.d)) * f16_to_f32(ab.d)) * static_cast<double>(products);
        }
        return sum;
    }

    static int quant(const Block& b, int j) {
        if constexpr (std::is_same_v<Block, BlockQ4_0>) {
            const auto byte = b.qs[static_cast<std::size_t>(j % 16)];
            return (j < 16 ? byte & 0xF : byte >> 4) - 8;
        } else {
            return b.qs[static_cast<std::size_t>(j)];
        }
    }
};

// |interleaved - scalar::dot| <= kGemmBound · M. The contract (kernels/quant_dot.h) allows
// 2·γ_D · M, D = 2·n_blocks + 8; measured at most 6.30e-8·M over the 31 328 outputs below
// (simd build, AVX-512 VNNI); the bound is 10x that.
constexpr double kGemmBound = 6.3e-7;

template <typename Block>
Operands<Block> random_operands(std::int64_t n, std::int64_t m, std::int64_t blocks) {
    std::mt19937 rng(static_cast<unsigned>(n * 1000 + m * 10 + blocks));
    return {n, m, blocks, random_blocks<Block>(static_cast<std::size_t>(n * blocks), rng),
            random_activations<BlockQ8_0>(static_cast<std::size_t>(m * blocks), rng)};
}

// The whole product in one call, with padding between output rows that must stay untouched.
template <typename Block>
void check_against_spec(std::int64_t n, std::int64_t m, std::int64_t blocks) {
    const auto op = random_operands<Block>(n, m, blocks);
    const std::int64_t y_stride = n + 5;
    std::vector<float> y(static_cast<std::size_t>(m * y_stride), -1.0f);
    op.run(0, m, 0, n, y, y_stride);
    for (std::int64_t r = 0; r < m; ++r) {
        for (std::int64_t c = 0; c < n; ++c) {
            ASSERT_NEAR(y[static_cast<std::size_t>(r * y_stride + c)], op.spec(r, c),
                        kGemmBound * op.magnitude(r, c))
                << n << "x" << m << "x" << blocks << " at (" << r << ", " << c << ")";
        }
        for (std::int64_t c = n; c < y_stride; ++c) ASSERT_EQ(y[static_cast<std::size_t>(r * y_stride + c)], -1.0f);
    }
}

// One activation row at a time and one group at a time give the bits of the whole call.
template <typename Block>
void check_split_independence(std::int64_t n, std::int64_t m, std::int64_t blocks) {
    const auto op = random_operands<Block>(n, m, blocks);
    std::vector<float> whole(static_cast<std::size_t>(m * n)), split(whole.size());
    op.run(0, m, 0, n, whole, n);
    for (std::int64_t r = 0; r < m; ++r) {
        for (std::int64_t g = 0; g * kInterleave < n; ++g) {
            op.run(r, r + 1, g, std::min(n, (g + 1) * kInterleave), split, n);
        }
    }
    for (std::size_t i = 0; i < whole.size(); ++i) {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(whole[i]), std::bit_cast<std::uint32_t>(split[i]))
            << n << "x" << m << "x" << blocks << " at " << i;
    }
}

// Scales ±2^-4 / ±2^-5 (weights) and ±2^-3 / ±2^-4 (activations), activation quants in
// [-15, 15]: with at most 8 blocks every partial sum is a multiple of 2^-9 below 2^12, so
// exact, and the kernel must equal scalar::dot bit for bit.
template <typename Block>
void check_exact(std::int64_t n, std::int64_t m, std::int64_t blocks) {
    std::mt19937 rng(static_cast<unsigned>(7 + n + m + blocks));
    std::uniform_int_distribution<int> bit(0, 1), quant(-15, 15);
    const auto power_of_two = [&](int e) { return f32_to_f16(std::ldexp(bit(rng) ? 1.0f : -1.0f, -(e + bit(rng)))); };
    auto w = random_blocks<Block>(static_cast<std::size_t>(n * blocks), rng);
    for (auto& b : w) b.d = power_of_two(4);
    std::vector<BlockQ8_0> a(static_cast<std::size_t>(m * blocks));
    for (auto& b : a) {
        b.d = power_of_two(3);
        for (auto& q : b.qs) q = static_cast<std::int8_t>(quant(rng));
    }
    const Operands<Block> op(n, m, blocks, std::move(w), std::move(a));
    std::vector<float> y(static_cast<std::size_t>(m * n));
    op.run(0, m, 0, n, y, n);
    for (std::int64_t r = 0; r < m; ++r) {
        for (std::int64_t c = 0; c < n; ++c) {
            ASSERT_EQ(std::bit_cast<std::uint32_t>(y[static_cast<std::size_t>(r * n + c)]),
                      std::bit_cast<std::uint32_t>(op.spec(r, c)))
                << n << "x" << m << "x" << blocks << " at (" << r << ", " << c << ")";
        }
    }
}

// Rows around the 16-row group, activation rows around the 8-row tile, 1 to 33 blocks.
template <typename Block>
void check_format() {
    for (const std::int64_t n : {1, 15, 16, 17, 40}) {
        for (const std::int64_t m : {1, 2, 7, 8, 9, 17}) {
            for (const std::int64_t blocks : {1, 3, 8, 33}) {
                check_against_spec<Block>(n, m, blocks);
                check_split_independence<Block>(n, m, blocks);
                if (blocks <= 8) check_exact<Block>(n, m, blocks);
            }
        }
    }
}

TEST(QuantGemmInterleaved, Q4_0) { check_format<BlockQ4_0>(); }
TEST(QuantGemmInterleaved, Q8_0) { check_format<BlockQ8_0>(); }

// Q8_0 weights at -128 (stored as unsigned 0) are exact too.
TEST(QuantGemmInterleaved, Q8_0WeightsAtMinus128) {
    std::mt19937 rng(5);
    auto w = random_blocks<BlockQ8_0>(17 * 4, rng);
    for (auto& b : w) {
        b.qs.fill(-128);
        b.d = f32_to_f16(0.0625f);
    }
    auto a = random_activations<BlockQ8_0>(3 * 4, rng);
    for (auto& b : a) b.d = f32_to_f16(0.125f);
    const Operands<BlockQ8_0> op(17, 3, 4, std::move(w), std::move(a));
    std::vector<float> y(3 * 17);
    op.run(0, 3, 0, 17, y, 17);
    for (std::int64_t r = 0; r < 3; ++r) {
        for (std::int64_t c = 0; c < 17; ++c) EXPECT_EQ(y[static_cast<std::size_t>(r * 17 + c)], op.spec(r, c));
    }
}

// deinterleave_row is interleave's inverse: every row of every group comes back byte for byte.
template <typename Block>
void check_row_round_trip() {
    std::mt19937 rng(11);
    const std::int64_t n = 37, blocks = 5;
    auto w = random_blocks<Block>(static_cast<std::size_t>(n * blocks), rng);
    const Operands<Block> op(n, 1, blocks, w, random_activations<BlockQ8_0>(static_cast<std::size_t>(blocks), rng));
    std::vector<Block> row(static_cast<std::size_t>(blocks));
    for (std::int64_t r = 0; r < n; ++r) {
        simd::deinterleave_row(op.group(r / kInterleave), blocks, static_cast<int>(r % kInterleave), row.data());
        ASSERT_EQ(std::memcmp(row.data(), w.data() + r * blocks, row.size() * sizeof(Block)), 0) << "row " << r;
    }
}

TEST(QuantGemmInterleaved, RowsComeBackUnchanged) {
    check_row_round_trip<BlockQ4_0>();
    check_row_round_trip<BlockQ8_0>();
}

}  // namespace
}  // namespace forge::kernels

#endif
